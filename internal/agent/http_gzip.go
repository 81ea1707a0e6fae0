package agent

import (
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// WithGzip compresses replies for callers that send Accept-Encoding:
// gzip, as Nomad's HTTP server does for its whole API (the official
// client always asks, and unzips). The agent's listener serves through
// it, and so does drover bench's read load. Streams keep streaming: Flush flushes the
// compressor (a sync flush) before the connection, so each event, log
// frame or pprof chunk reaches the caller when it did before.
//
// Left uncompressed: websocket upgrades (exec, task actions: the connection
// is hijacked), HEAD, 1xx/204/304 replies, a reply whose handler set its
// own Content-Encoding (a proxied one), and application/octet-stream (the
// raft snapshot download: a binary body whose Digest header names its
// bytes). Where Drover differs on purpose: Nomad also offers deflate and
// compresses at the default level; Drover offers gzip only, at BestSpeed,
// since every official-client read pays for it in server CPU.
//
// The request's Accept-Encoding is removed once the reply is to be
// compressed here, so a handler that proxies the request (to a client
// agent or a server) does not get a compressed reply to compress again.
func WithGzip(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead || r.Header.Get("Upgrade") != "" || !acceptsGzip(r.Header.Values("Accept-Encoding")) {
			next.ServeHTTP(w, r)
			return
		}
		r.Header.Del("Accept-Encoding")
		w.Header().Add("Vary", "Accept-Encoding")
		gw := &gzipResponseWriter{ResponseWriter: w}
		defer gw.close()
		next.ServeHTTP(gw, r)
	})
}

// acceptsGzip reports whether an Accept-Encoding header lists gzip (or
// x-gzip) with a non-zero quality.
func acceptsGzip(values []string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(part, ";")
			coding = strings.ToLower(strings.TrimSpace(coding))
			if coding != "gzip" && coding != "x-gzip" {
				continue
			}
			q := 1.0
			for _, p := range strings.Split(params, ";") {
				if k, val, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
					if err != nil {
						f = 0
					}
					q = f
				}
			}
			if q > 0 {
				return true
			}
		}
	}
	return false
}

var gzipWriters = sync.Pool{New: func() any {
	gz, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	return gz
}}

// gzipResponseWriter decides at the reply's header whether to compress.
type gzipResponseWriter struct {
	http.ResponseWriter
	decided bool
	gz      *gzip.Writer // nil: not compressing
}

// Unwrap lets http.ResponseController reach the connection's deadlines
// and, for an uncompressed reply, Hijack.
func (w *gzipResponseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *gzipResponseWriter) WriteHeader(code int) {
	if code >= 100 && code < 200 {
		w.ResponseWriter.WriteHeader(code) // informational: the real reply follows
		return
	}
	if !w.decided {
		w.decided = true
		h := w.Header()
		if code != http.StatusNoContent && code != http.StatusNotModified && h.Get("Content-Encoding") == "" &&
			!strings.HasPrefix(h.Get("Content-Type"), "application/octet-stream") {
			h.Set("Content-Encoding", "gzip")
			h.Del("Content-Length")
			w.gz = gzipWriters.Get().(*gzip.Writer)
			w.gz.Reset(w.ResponseWriter)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *gzipResponseWriter) Write(b []byte) (int, error) {
	if !w.decided {
		w.WriteHeader(http.StatusOK)
	}
	if w.gz != nil {
		return w.gz.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// ReadFrom sends src through the compressor, or, for a reply not
// compressed here (a cached reply kept gzip'd), through the connection's
// own ReadFrom, which sends a file with sendfile(2).
func (w *gzipResponseWriter) ReadFrom(src io.Reader) (int64, error) {
	if !w.decided {
		w.WriteHeader(http.StatusOK)
	}
	if w.gz != nil {
		return io.Copy(w.gz, src)
	}
	return io.Copy(w.ResponseWriter, src)
}

// FlushError sends what was written so far (http.ResponseController's
// Flush calls it): the compressor's pending output, then the connection.
func (w *gzipResponseWriter) FlushError() error {
	if !w.decided {
		w.WriteHeader(http.StatusOK)
	}
	if w.gz != nil {
		if err := w.gz.Flush(); err != nil {
			return err
		}
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush implements http.Flusher for handlers that assert it.
func (w *gzipResponseWriter) Flush() { _ = w.FlushError() }

// close ends the compressed stream, if any, and returns the compressor.
func (w *gzipResponseWriter) close() {
	if w.gz == nil {
		return
	}
	_ = w.gz.Close()
	w.gz.Reset(io.Discard)
	gzipWriters.Put(w.gz)
	w.gz = nil
}
