package agent

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/telemetry"
)

// replyCacheBytes bounds the whole-reply cache of list endpoints: it
// holds a few replies of a 50,000-alloc listing (32 MB each) beside
// every smaller one; a reply bigger than a quarter of it is never kept.
const replyCacheBytes = 128 << 20

// replyCache keeps whole list replies (the exact body bytes) by request
// shape, each stamped with the reply's index. A list endpoint's index is
// the highest raft index of the tables it reads, and every write to one
// of them raises that table's index past every index before it: a reply
// whose index equals the tables' current highest index is therefore the
// reply a new read would build, byte for byte, and a repeat of an
// unchanged listing is one write of cached bytes, without walking the
// state store.
//
// With ACLs on, an entry is kept for the caller's view of the listing
// (list_reply_view.go), not its token: callers who see the same see one
// entry, and a caller the endpoint refuses goes the uncached way. It
// serves only where the endpoint answers from this server's own state
// (answersLocally): on an established leader, and on any server that
// has replayed its log for a stale read (a follower otherwise forwards,
// and a new leader waits for its barrier, so their local tables may be
// behind the answer).
type replyCache struct {
	mu      sync.Mutex
	entries map[string]*replyEntry
	bytes   int64
	max     int64
	tick    uint64 // LRU clock
	hits    int64
	misses  int64
	gzips   int64       // replies gzip'd for keeping (list_reply_gzip.go)
	off     atomic.Bool // tests: every request builds its reply
	seed    maphash.Seed
	fills   [64]sync.Mutex // one fill at a time per request shape
	fileMin atomic.Int64   // replyFileMin; tests lower it
}

// replyFileMin is the size from which a kept reply lives in a memory
// file (reply_file_linux.go) and is sent with sendfile(2); smaller ones
// stay on the heap.
const replyFileMin = 256 << 10

type replyEntry struct {
	index     uint64 // the reply's X-Nomad-Index
	nextToken string
	body      []byte   // the reply, unless file holds it
	file      *os.File // the reply in a memory file, or nil
	size      int64    // the reply's length
	used      uint64   // LRU tick of the last use
	// refs counts the requests sending the reply now, dropped says the
	// cache no longer keeps it: its file is closed when both say it is
	// unused (a request reopens the file by its descriptor number). Both
	// under replyCache.mu.
	refs    int
	dropped bool
	// gz is the reply gzip'd, made by the first request that asks for
	// gzip and kept beside the plain reply (under replyCache.mu); gzMu
	// makes one request compress it while the others wait for it.
	gzMu sync.Mutex
	gz   *gzipReply
	// gzOnly: only the gzip'd reply is kept (size is the plain one's
	// length): a listing too big to keep plain, kept for the callers
	// that ask for gzip (the official client always does).
	gzOnly bool
}

// gzipReply is a kept reply gzip'd at BestSpeed, as WithGzip would
// compress it for the request: on the heap, or in a memory file when the
// plain reply is in one.
type gzipReply struct {
	body []byte
	file *os.File
	size int64
}

// cost is what an entry counts against the budget.
func (e *replyEntry) cost(key string) int64 {
	n := int64(len(key)+len(e.nextToken)) + 64
	if !e.gzOnly {
		n += e.size
	}
	if e.gz != nil {
		n += e.gz.size
	}
	return n
}

func newReplyCache(maxBytes int64) *replyCache {
	c := &replyCache{entries: map[string]*replyEntry{}, max: maxBytes, seed: maphash.MakeSeed()}
	c.fileMin.Store(replyFileMin)
	return c
}

// get returns the reply kept for key at index, counting a hit or miss.
// A reply kept gzip'd alone answers only a caller that takes gzip
// (gzipOK). The caller sends it, then releases it.
func (c *replyCache) get(key string, index uint64, gzipOK bool) *replyEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.usable(key, index, gzipOK)
	if e == nil {
		c.misses++
		return nil
	}
	c.hits++
	c.tick++
	e.used = c.tick
	e.refs++
	return e
}

// peek is get without counting.
func (c *replyCache) peek(key string, index uint64, gzipOK bool) *replyEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.usable(key, index, gzipOK)
	if e != nil {
		e.refs++
	}
	return e
}

// usable is the entry kept for key at index that can answer the caller
// (under c.mu), or nil.
func (c *replyCache) usable(key string, index uint64, gzipOK bool) *replyEntry {
	e := c.entries[key]
	if e == nil || e.index != index || (e.gzOnly && !gzipOK) {
		return nil
	}
	return e
}

// release ends a request's use of e (from get, peek or fill).
func (c *replyCache) release(e *replyEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.refs--
	c.closeUnused(e)
}

// drop marks e no longer kept (under c.mu).
func (c *replyCache) drop(e *replyEntry) {
	e.dropped = true
	c.closeUnused(e)
}

func (c *replyCache) closeUnused(e *replyEntry) {
	if !e.dropped || e.refs != 0 {
		return
	}
	if e.file != nil {
		_ = e.file.Close()
		e.file = nil
	}
	if e.gz != nil && e.gz.file != nil {
		_ = e.gz.file.Close()
		e.gz.file = nil
	}
}

// fillLock is the lock of key's fills (one of fillLocks, by key's hash).
func (c *replyCache) fillLock(key string) *sync.Mutex {
	return &c.fills[maphash.String(c.seed, key)%uint64(len(c.fills))]
}

// put keeps e under key unless a newer reply is there already (or e is
// over a quarter of the budget), then drops the least recently used
// entries past the budget.
func (c *replyCache) put(key string, e *replyEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	size := e.cost(key)
	old := c.entries[key]
	if size > c.max/4 || (old != nil && old.index >= e.index) {
		c.drop(e)
		return
	}
	if old != nil {
		c.bytes -= old.cost(key)
		c.drop(old)
	}
	c.tick++
	e.used = c.tick
	c.entries[key] = e
	c.bytes += size
	c.evict()
}

// evict drops the least recently used entries until the cache is within
// its budget (under c.mu).
func (c *replyCache) evict() {
	for c.bytes > c.max {
		var lruKey string
		var lru *replyEntry
		for k, v := range c.entries {
			if lru == nil || v.used < lru.used {
				lruKey, lru = k, v
			}
		}
		delete(c.entries, lruKey)
		c.bytes -= lru.cost(lruKey)
		c.drop(lru)
	}
}

// reset drops every kept reply.
func (c *replyCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		c.drop(e)
	}
	c.entries, c.bytes = map[string]*replyEntry{}, 0
}

// replyCacheStats are the whole-reply cache's counters.
type replyCacheStats struct {
	Bytes, Entries, Hits, Misses, Gzips int64
}

func (c *replyCache) stats() replyCacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return replyCacheStats{Bytes: c.bytes, Entries: int64(len(c.entries)), Hits: c.hits, Misses: c.misses, Gzips: c.gzips}
}

// replyCacheGauges are the cache's figures at a scrape, for operators:
// bytes and entries kept now, and since the agent started the requests
// answered from it (hits), those that built their reply (misses) and
// the replies gzip'd for keeping. Drover's own names (Nomad has no such
// cache): drover_http_reply_cache_*.
func (h *HTTPServer) replyCacheGauges() []telemetry.Gauge {
	s := h.replies.stats()
	return []telemetry.Gauge{
		{Name: "drover.http.reply_cache.bytes", Value: float64(s.Bytes)},
		{Name: "drover.http.reply_cache.entries", Value: float64(s.Entries)},
		{Name: "drover.http.reply_cache.hits", Value: float64(s.Hits)},
		{Name: "drover.http.reply_cache.misses", Value: float64(s.Misses)},
		{Name: "drover.http.reply_cache.gzips", Value: float64(s.Gzips)},
	}
}

// replyKey names a list request's shape: its path and every query
// parameter but the blocking ones (index, wait), which change when the
// reply is sent, not what it is (url.Values.Encode sorts by name), and
// the caller's view (replyView; "" for the unfiltered one).
func replyKey(r *http.Request, view string) string {
	q := r.URL.Query()
	q.Del("index")
	q.Del("wait")
	key := r.URL.Path
	if len(q) != 0 {
		key += "?" + q.Encode()
	}
	if view != "" {
		key += "\x00" + view // no query's encoding has a NUL
	}
	return key
}

// cachedList answers a list request from the whole-reply cache when it
// can, else by build (the endpoint's handler, which sets the reply's
// headers), keeping what build answered. tables are the state tables the
// endpoint's index covers.
//
// One request per request shape builds and renders at a time (fill): the
// others wait for its reply instead of each rendering their own copy of
// a listing that may be tens of megabytes. A blocking request does its
// wait outside that lock.
func (h *HTTPServer) cachedList(w http.ResponseWriter, r *http.Request, tables []string,
	build func() (any, error)) (any, error) {
	c := h.replies
	if c == nil || c.off.Load() || h.srv == nil || !h.answersLocally(r) {
		return build()
	}
	view, ok := h.replyView(r)
	if !ok {
		return build()
	}
	if hook := testHookViewed.Load(); hook != nil {
		(*hook)()
	}
	// The query options the endpoint would refuse (a bad wait, say, which
	// the key leaves out) are refused the same way, by the endpoint.
	q, err := parseQuery(r)
	if err != nil {
		return build()
	}
	minIndex := q.MinQueryIndex
	key := replyKey(r, view.key)
	gzipOK := compressingWriter(w) != nil
	st := h.srv.State()
	// The same test the blocking query makes: an answer past the
	// caller's index is sent at once.
	if index := st.MaxTableIndex(tables...); index > minIndex {
		if e := c.get(key, index, gzipOK); e != nil {
			h.writeCached(w, r, key, e, true)
			return nil, nil
		}
		fill := c.fillLock(key)
		fill.Lock()
		if e := c.peek(key, st.MaxTableIndex(tables...), gzipOK); e != nil {
			fill.Unlock()
			h.writeCached(w, r, key, e, true)
			return nil, nil
		}
		// Built here, not by fill: a reply whose view did not hold is
		// sent, not kept.
		out, err := build()
		if err != nil || !h.held(view) {
			fill.Unlock()
			return out, err
		}
		e, out, err := c.fill(w, r, key, func() (any, error) { return out, nil })
		fill.Unlock()
		if e == nil {
			return out, err
		}
		h.writeCached(w, r, key, e, false)
		return nil, nil
	}
	out, err := build() // blocks until the tables pass minIndex
	if err != nil || !h.held(view) {
		return out, err
	}
	fill := c.fillLock(key)
	fill.Lock()
	e, out, err := c.fill(w, r, key, func() (any, error) { return out, nil })
	fill.Unlock()
	if e == nil {
		return out, err
	}
	h.writeCached(w, r, key, e, false)
	return nil, nil
}

// fill builds a reply and keeps it. A reply already kept at the index
// build answered (another request's, built meanwhile) is used instead of
// rendering again. It returns a nil entry, with build's result, when the
// reply is not to be kept.
func (c *replyCache) fill(w http.ResponseWriter, r *http.Request, key string, build func() (any, error)) (*replyEntry, any, error) {
	out, err := build()
	if err != nil {
		return nil, nil, err
	}
	index, err := strconv.ParseUint(w.Header().Get("X-Nomad-Index"), 10, 64)
	if err != nil || index <= 1 {
		return nil, out, nil
	}
	if e := c.peek(key, index, compressingWriter(w) != nil); e != nil {
		return e, nil, nil
	}
	e := &replyEntry{index: index, nextToken: w.Header().Get("X-Nomad-NextToken"), refs: 1}
	pretty := isPretty(r)
	if l, ok := out.(jsonList); ok {
		e.size = int64(l.size())
		if e.cost(key) > c.max/4 {
			// Too big to keep plain: kept gzip'd for a caller that
			// asks for gzip, else streamed as it is built.
			if pretty || compressingWriter(w) == nil {
				return nil, out, nil
			}
			if e := c.keepGzipOnly(key, e, l); e != nil {
				return e, nil, nil
			}
			return nil, out, nil
		}
		if !pretty && e.size >= c.fileMin.Load() {
			// Straight into the memory file, never whole on the heap.
			if f, err := newReplyFile(l.writeChunks); err == nil {
				if st, err := f.Stat(); err == nil && st.Size() == e.size {
					e.file = f
					c.put(key, e)
					return e, nil, nil
				}
				f.Close()
			}
		}
	}
	body, err := renderJSON(out, pretty)
	if err != nil {
		return nil, out, nil // the uncached path reports it
	}
	e.body, e.size = body, int64(len(body))
	if e.size >= c.fileMin.Load() && e.cost(key) <= c.max/4 {
		if f, err := newReplyFile(func(w io.Writer) error { _, err := w.Write(body); return err }); err == nil {
			e.file, e.body = f, nil
		}
	}
	c.put(key, e)
	return e, nil, nil
}

// writeCached sends e's body, with its query metadata when meta (a
// reply built just now has it set already): gzip'd, from the copy kept
// beside it, when WithGzip would compress it.
func (h *HTTPServer) writeCached(w http.ResponseWriter, r *http.Request, key string, e *replyEntry, meta bool) {
	defer h.replies.release(e)
	if meta {
		setMeta(w, metaOf(h, e))
	}
	w.Header().Set("Content-Type", "application/json")
	body, file, size := e.body, e.file, e.size
	if compressingWriter(w) != nil {
		if g, err := h.replies.gzipped(key, e); err == nil {
			// WithGzip leaves a reply with its own encoding as it is.
			w.Header().Set("Content-Encoding", "gzip")
			body, file, size = g.body, g.file, g.size
		} else {
			h.log.Debug("http: gzip a cached reply", "path", r.URL.Path, "error", err)
		}
	}
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	var err error
	switch {
	case file == nil:
		_, err = w.Write(body)
	default:
		// A file of its own lets http.ResponseWriter's ReadFrom send
		// it with sendfile; failing that, the shared one is read at
		// offsets.
		var f *os.File
		if f, err = openReplyFile(file); err == nil {
			_, err = io.Copy(w, f)
			f.Close()
		} else {
			_, err = io.Copy(w, io.NewSectionReader(file, 0, size))
		}
	}
	if err != nil {
		h.log.Debug("http: write response", "path", r.URL.Path, "error", err)
	}
}

func metaOf(h *HTTPServer, e *replyEntry) (m server.QueryMeta) {
	m.Index, m.NextToken = e.index, e.nextToken
	m.KnownLeader = h.srv.Leader() != ""
	m.LastContact = h.srv.LastContact()
	return m
}

func isPretty(r *http.Request) bool {
	_, pretty := r.URL.Query()["pretty"]
	return pretty
}

// renderJSON is the body wrap writes for out: a jsonList's array, or
// json.Encoder's encoding (indented with ?pretty).
func renderJSON(out any, pretty bool) ([]byte, error) {
	if list, ok := out.(jsonList); ok {
		return list.bytes(pretty), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if pretty {
		enc.SetIndent("", "    ")
	}
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
