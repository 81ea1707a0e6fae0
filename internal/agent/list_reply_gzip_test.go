package agent

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// getRaw GETs path asking for encoding itself, so Go's client leaves the
// body as it came over the wire.
func getRaw(t *testing.T, a *Agent, path, encoding string) (*http.Response, []byte) {
	t.Helper()
	return fetch(t, a, path, "", encoding)
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("bad gzip: %v", err)
	}
	return out
}

// TestListReplyCache_GzipKeptOnce: a cached listing asked for gzip goes
// out gzip'd (Content-Encoding, a Content-Length that is the wire's, the
// plain reply's bytes once unzipped), compressed once per kept reply and
// not on every request, its compressed bytes counted in the cache's
// budget; a change makes a new reply, compressed again. Both where the
// kept replies live on the heap and in memory files.
func TestListReplyCache_GzipKeptOnce(t *testing.T) {
	for _, inFile := range []bool{false, true} {
		t.Run("file="+strconv.FormatBool(inFile), func(t *testing.T) {
			a, c := testAgent(t, allSchedulers)
			if inFile {
				a.httpHandler.replies.fileMin.Store(1)
			}
			seedListCluster(t, a, c)
			cache := a.httpHandler.replies
			for _, path := range []string{"/v1/allocations", "/v1/jobs?namespace=*", "/v1/nodes"} {
				cache.reset()
				plainResp, plain := getRaw(t, a, path, "identity")
				if plainResp.StatusCode != 200 || plainResp.Header.Get("Content-Encoding") != "" {
					t.Fatalf("GET %s plain: %d %q", path, plainResp.StatusCode, plainResp.Header.Get("Content-Encoding"))
				}
				before := cache.stats()
				for i := range 3 {
					resp, wire := getRaw(t, a, path, "gzip")
					if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" {
						t.Fatalf("GET %s #%d: %d encoding %q vary %q", path, i, resp.StatusCode, resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
					}
					if cl := resp.Header.Get("Content-Length"); cl != strconv.Itoa(len(wire)) {
						t.Fatalf("GET %s #%d: Content-Length %s for %d bytes", path, i, cl, len(wire))
					}
					if got := gunzip(t, wire); !bytes.Equal(got, plain) {
						t.Fatalf("GET %s #%d: unzipped\n%s\nwant\n%s", path, i, got, plain)
					}
					if resp.Header.Get("X-Nomad-Index") != plainResp.Header.Get("X-Nomad-Index") {
						t.Fatalf("GET %s: index %s, plain %s", path, resp.Header.Get("X-Nomad-Index"), plainResp.Header.Get("X-Nomad-Index"))
					}
					if i == 0 {
						if s := cache.stats(); s.Bytes != before.Bytes+int64(len(wire)) {
							t.Fatalf("GET %s: the gzip'd copy's %d bytes are not counted: %d then %d", path, len(wire), before.Bytes, s.Bytes)
						}
					}
				}
				if s := cache.stats(); s.Gzips-before.Gzips != 1 || s.Hits-before.Hits != 3 {
					t.Fatalf("GET %s: %d compressions and %d hits for 3 gzip'd reads of one kept reply", path, s.Gzips-before.Gzips, s.Hits-before.Hits)
				}
			}
			// A change: a new reply, compressed anew, with the new job in it.
			resp, _, err := c.Jobs().Register(testAPIJob("web3"), nil)
			if err != nil {
				t.Fatal(err)
			}
			waitEvalDone(t, c, resp.EvalID)
			before := cache.stats()
			_, wire := getRaw(t, a, "/v1/jobs?namespace=*", "gzip")
			_, plain := getRaw(t, a, "/v1/jobs?namespace=*", "identity")
			if got := gunzip(t, wire); !bytes.Equal(got, plain) || !bytes.Contains(got, []byte(`"web3"`)) {
				t.Fatalf("after a change, unzipped\n%s\nwant\n%s", got, plain)
			}
			if s := cache.stats(); s.Gzips-before.Gzips != 1 {
				t.Fatalf("after a change: %d compressions", s.Gzips-before.Gzips)
			}
			// The official client (gzip, unzipped by Go's transport) reads it.
			jobs, _, err := c.Jobs().List(&api.QueryOptions{Namespace: "*"})
			if err != nil || len(jobs) != 3 {
				t.Fatalf("official client: %d jobs, %v", len(jobs), err)
			}
		})
	}
}

// TestReplyCache_GzipFileClosedWithEntry: the gzip'd copy of a reply in
// a memory file is closed with the reply, once dropped and unused, and
// leaves the budget with it.
func TestReplyCache_GzipFileClosedWithEntry(t *testing.T) {
	f, err := newReplyFile(func(w io.Writer) error { _, err := io.WriteString(w, `["x","x","x"]`); return err })
	if err != nil {
		t.Skipf("no memory files here: %v", err)
	}
	c := newReplyCache(1 << 20)
	c.put("k", &replyEntry{index: 7, file: f, size: 13})
	e := c.get("k", 7, false)
	g, err := c.gzipped("k", e)
	if err != nil || g.file == nil {
		t.Fatalf("gzipped: %+v, %v", g, err)
	}
	if s := c.stats(); s.Bytes != e.cost("k") || s.Bytes < 13+g.size {
		t.Fatalf("budget %d for a 13-byte reply and its %d-byte gzip", s.Bytes, g.size)
	}
	gf := g.file
	c.reset()
	if s := c.stats(); s.Bytes != 0 {
		t.Fatalf("budget %d after reset", s.Bytes)
	}
	if _, err := gf.Stat(); err != nil {
		t.Fatal("the gzip'd file was closed under a request")
	}
	c.release(e)
	if _, err := gf.Stat(); err == nil || g.file != nil {
		t.Fatal("the dropped reply's gzip'd file is still open after its last send")
	}
}

// TestReplyCache_Metrics: the reply cache's figures are on /v1/metrics,
// in Nomad's JSON summary (dotted) and the Prometheus exposition
// (drover_http_reply_cache_*), as they are in the cache.
func TestReplyCache_Metrics(t *testing.T) {
	a, c := testAgent(t, allSchedulers)
	seedListCluster(t, a, c)
	for range 3 {
		getRaw(t, a, "/v1/jobs?namespace=*", "gzip")
	}
	s := a.httpHandler.replies.stats()
	if s.Hits == 0 || s.Gzips == 0 || s.Entries == 0 {
		t.Fatalf("the cache was not used: %+v", s)
	}
	want := map[string]int64{"bytes": s.Bytes, "entries": s.Entries, "hits": s.Hits, "misses": s.Misses, "gzips": s.Gzips}
	summary, _, err := c.Operator().MetricsSummary(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float32{}
	for _, g := range summary.Gauges {
		got[g.Name] = g.Value
	}
	_, text := doRaw(t, a, "GET", "/v1/metrics?format=prometheus", "")
	for name, v := range want {
		if g, ok := got["drover.http.reply_cache."+name]; !ok || int64(g) != v {
			t.Errorf("JSON gauge drover.http.reply_cache.%s = %v (present %v), want %d", name, g, ok, v)
		}
		if line := "drover_http_reply_cache_" + name + " " + strconv.FormatInt(v, 10); !strings.Contains(text, line+"\n") {
			t.Errorf("prometheus exposition lacks %q", line)
		}
	}
}

// TestListReplyCache_GzipOnlyWhenTooBigPlain: a listing too big to keep
// plain is kept gzip'd alone for the callers that ask for gzip, compressed
// once, and answers them the plain reply's bytes once unzipped; a plain
// caller still gets the whole listing, built anew, and never a kept
// gzip'd reply. Every list path then answers as uncached, in both
// encodings, with the cache this small.
func TestListReplyCache_GzipOnlyWhenTooBigPlain(t *testing.T) {
	a, c := testAgent(t, allSchedulers)
	ids := seedListCluster(t, a, c)
	cache := a.httpHandler.replies
	const path = "/v1/allocations?namespace=*"
	cache.off.Store(true)
	_, plain := getRaw(t, a, path, "identity")
	_, wire := getRaw(t, a, path, "gzip")
	cache.off.Store(false)
	// Too big to keep plain (cost is the size plus the key, the next
	// token and 64), small enough gzip'd.
	quarter := int64(len(plain)) + int64(len(path)) + 64 - 1
	if int64(len(wire))+int64(len(path))+64 > quarter {
		t.Fatalf("the listing gzip'd (%d B) is not smaller than plain (%d B)", len(wire), len(plain))
	}
	cache.mu.Lock()
	cache.max = 4 * quarter
	cache.mu.Unlock()
	cache.reset()

	before := cache.stats()
	for i := range 3 {
		resp, got := getRaw(t, a, path, "gzip")
		if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Content-Length") != strconv.Itoa(len(got)) {
			t.Fatalf("#%d: encoding %q length %q for %d bytes", i, resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Length"), len(got))
		}
		if unzipped := gunzip(t, got); !bytes.Equal(unzipped, plain) {
			t.Fatalf("#%d: unzipped\n%s\nwant\n%s", i, unzipped, plain)
		}
	}
	s := cache.stats()
	if s.Gzips-before.Gzips != 1 || s.Hits-before.Hits != 2 || s.Entries != 1 || s.Bytes > quarter {
		t.Fatalf("3 gzip'd reads: %d compressions, %d hits, %d entries, %d bytes (bound %d)",
			s.Gzips-before.Gzips, s.Hits-before.Hits, s.Entries, s.Bytes, quarter)
	}
	for range 2 {
		resp, got := getRaw(t, a, path, "identity")
		if resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(got, plain) {
			t.Fatalf("plain read: encoding %q\n%s\nwant\n%s", resp.Header.Get("Content-Encoding"), got, plain)
		}
	}
	// Built anew: misses, not hits, and the kept reply as it was.
	if s2 := cache.stats(); s2.Gzips != s.Gzips || s2.Entries != 1 || s2.Hits != s.Hits || s2.Misses == s.Misses {
		t.Fatalf("plain reads of a gzip'd-only reply: %+v then %+v", s, s2)
	}
	checkListReplies(t, a, "a small cache", false, listPaths(ids), []string{""})
}
