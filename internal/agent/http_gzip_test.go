package agent

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"
)

// gzipGet sends a GET that Go's transport leaves alone (no automatic gzip),
// with the Accept-Encoding given.
func gzipGet(t *testing.T, url, acceptEncoding string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestGzip_ReplyDecodesToSameJSON: with Accept-Encoding: gzip a reply is
// compressed and decodes to the bytes of the uncompressed reply; without
// it, or with gzip refused (q=0), it is not compressed.
func TestGzip_ReplyDecodesToSameJSON(t *testing.T) {
	a, c := testAgent(t, nil)
	if _, _, err := c.Jobs().Register(testAPIJob("web"), nil); err != nil {
		t.Fatal(err)
	}
	base := "http://" + a.HTTPAddr()
	for _, path := range []string{"/v1/jobs", "/v1/job/web", "/v1/evaluations", "/v1/allocations", "/v1/nodes", "/v1/namespaces", "/v1/job/missing"} {
		plain := gzipGet(t, base+path, "")
		want, _ := io.ReadAll(plain.Body)
		plain.Body.Close()
		if ce := plain.Header.Get("Content-Encoding"); ce != "" {
			t.Fatalf("%s without Accept-Encoding: Content-Encoding %q", path, ce)
		}
		zipped := gzipGet(t, base+path, "deflate, gzip;q=0.8")
		if ce := zipped.Header.Get("Content-Encoding"); ce != "gzip" {
			t.Fatalf("%s: Content-Encoding %q, want gzip", path, ce)
		}
		if zipped.StatusCode != plain.StatusCode || zipped.Header.Get("X-Nomad-Index") != plain.Header.Get("X-Nomad-Index") {
			t.Fatalf("%s: status/index %d %s, want %d %s", path, zipped.StatusCode, zipped.Header.Get("X-Nomad-Index"), plain.StatusCode, plain.Header.Get("X-Nomad-Index"))
		}
		zr, err := gzip.NewReader(zipped.Body)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, err := io.ReadAll(zr)
		zipped.Body.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: gzip reply decodes to\n%s\nwant\n%s", path, got, want)
		}
		if plain.StatusCode == http.StatusOK && !json.Valid(got) {
			t.Fatalf("%s: not JSON: %s", path, got)
		}
		refused := gzipGet(t, base+path, "gzip;q=0")
		refused.Body.Close()
		if ce := refused.Header.Get("Content-Encoding"); ce != "" {
			t.Fatalf("%s with gzip;q=0: Content-Encoding %q", path, ce)
		}
	}
}

// TestGzip_EventStreamFlushesEachBatch: a compressed event stream delivers
// an event while the stream is still open (each batch is flushed through
// the compressor), so a follower never waits for the stream to end.
func TestGzip_EventStreamFlushesEachBatch(t *testing.T) {
	a, c := testAgent(t, nil)
	resp := gzipGet(t, "http://"+a.HTTPAddr()+"/v1/event/stream?topic=Job", "gzip")
	defer resp.Body.Close()
	if ce := resp.Header.Get("Content-Encoding"); ce != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", ce)
	}
	got := make(chan string, 1)
	go func() {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		sc := bufio.NewScanner(zr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if bytes.Contains(sc.Bytes(), []byte(`"Key":"streamed"`)) {
				got <- "seen"
				return
			}
		}
		got <- "stream ended: " + sc.Err().Error()
	}()
	if _, _, err := c.Jobs().Register(testAPIJob("streamed"), nil); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "seen" {
			t.Fatal(s)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the job's event did not arrive through the open gzip stream")
	}
}

func TestAcceptsGzip(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want bool
	}{
		{nil, false},
		{[]string{""}, false},
		{[]string{"gzip"}, true},
		{[]string{"GZIP"}, true},
		{[]string{"x-gzip"}, true},
		{[]string{"deflate, gzip;q=0.5"}, true},
		{[]string{"gzip;q=0"}, false},
		{[]string{"gzip; q=0.0"}, false},
		{[]string{"gzip;q=bad"}, false},
		{[]string{"br", "gzip"}, true},
		{[]string{"identity"}, false},
		{[]string{"*"}, false},
		{[]string{"gzipx"}, false},
	} {
		if got := acceptsGzip(tc.in); got != tc.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzAcceptsGzip: any header value is parsed without panicking, and a
// value naming no gzip coding is never taken as accepting gzip.
func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"gzip", "deflate, gzip;q=0.5", "gzip;q=0", "x-gzip;q=1;a=b", ";;,,=", "gzip;q=1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := acceptsGzip([]string{s})
		if got && !bytes.Contains(bytes.ToLower([]byte(s)), []byte("gzip")) {
			t.Fatalf("acceptsGzip(%q) without gzip in it", s)
		}
	})
}
