package agent

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
)

// A caller that asks for gzip (the official client always does) got a
// cached listing compressed anew on every request: for a 50,000-alloc
// listing, 32 MB through the compressor, about a hundred milliseconds of
// server CPU each time. The cache now keeps the gzip'd reply beside the
// plain one, made once per kept reply by the first request that asks,
// and sends it as WithGzip would have: Content-Encoding gzip, Vary
// Accept-Encoding (WithGzip's), the same decompressed bytes. A listing
// too big to keep plain is kept gzip'd alone (keepGzipOnly), for those
// callers only.

// gzipped is e's reply gzip'd, compressed now if no request has asked
// for it yet. While e is kept under key, the compressed bytes count
// against the cache's budget.
func (c *replyCache) gzipped(key string, e *replyEntry) (*gzipReply, error) {
	e.gzMu.Lock()
	defer e.gzMu.Unlock()
	c.mu.Lock()
	g := e.gz
	c.mu.Unlock()
	if g != nil {
		return g, nil
	}
	g, err := compressReply(e)
	if err != nil {
		return nil, err
	}
	// The caller holds e (refs), so its plain reply is open and e.gz
	// is closed with it once e is dropped and unused.
	c.mu.Lock()
	defer c.mu.Unlock()
	e.gz = g
	c.gzips++
	if !e.dropped && c.entries[key] == e {
		c.bytes += g.size
		c.evict()
	}
	return g, nil
}

// compressReply gzips e's plain reply at BestSpeed (WithGzip's level)
// into a memory file when the plain reply lives in one, else on the
// heap.
func compressReply(e *replyEntry) (*gzipReply, error) {
	var src io.Reader = bytes.NewReader(e.body)
	if e.file != nil {
		src = io.NewSectionReader(e.file, 0, e.size)
	}
	return gzipInto(e.file != nil, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	})
}

// gzipInto gzips what write writes at BestSpeed, into a memory file if
// inFile, else on the heap.
func gzipInto(inFile bool, write func(io.Writer) error) (*gzipReply, error) {
	compress := func(w io.Writer) error {
		gz := gzipWriters.Get().(*gzip.Writer)
		defer func() { gz.Reset(io.Discard); gzipWriters.Put(gz) }()
		gz.Reset(w)
		if err := write(gz); err != nil {
			return err
		}
		return gz.Close()
	}
	if inFile {
		f, err := newReplyFile(compress)
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		return &gzipReply{file: f, size: st.Size()}, nil
	}
	var b bytes.Buffer
	if err := compress(&b); err != nil {
		return nil, err
	}
	return &gzipReply{body: b.Bytes(), size: int64(b.Len())}, nil
}

// keepGzipOnly keeps, for a caller that asks for gzip, a listing too big
// to keep plain: l is written straight through the compressor into a
// memory file (never whole on the heap), and kept gzip'd alone unless
// that too is over the cache's per-reply bound. e (the caller's, with
// the reply's index, next token and plain size) is returned to be sent,
// or nil if compressing failed (the caller then streams the listing as
// it is built).
func (c *replyCache) keepGzipOnly(key string, e *replyEntry, l jsonList) *replyEntry {
	g, err := gzipInto(true, l.writeChunks)
	if err != nil {
		return nil
	}
	e.gz, e.gzOnly = g, true
	c.mu.Lock()
	c.gzips++
	c.mu.Unlock()
	c.put(key, e)
	return e
}

// compressingWriter is WithGzip's writer when it is about to compress
// this reply, else nil.
func compressingWriter(w http.ResponseWriter) *gzipResponseWriter {
	if gw, ok := w.(*gzipResponseWriter); ok && !gw.decided {
		return gw
	}
	return nil
}
