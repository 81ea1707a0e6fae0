// Package jsoncache keeps the JSON encoding of state objects, so a list
// endpoint encodes each object once instead of on every request.
//
// The rule it relies on is the state store's: an object, once stored, is
// never changed, and every write that stores a new version of an object
// stamps it with the write's raft index (ModifyIndex). An object's ID and
// ModifyIndex therefore name one content for ever, and an encoding cached
// under them (and a small variant number for the request's shape, say
// with or without resources) can never be stale: nothing is invalidated
// by hand.
//
// The cache is bounded by bytes. It keeps two generations per shard: new
// encodings go into the young one; when it fills, it becomes the old one
// and the previous old one is dropped; a hit in the old generation moves
// the entry back into the young one. Encodings of objects no longer
// listed (older versions, deleted objects) thus age out within two
// generations, and a full cache costs one re-encoding, never an error.
package jsoncache

import (
	"encoding/json"
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// shards spread concurrent requests over independent locks.
const shards = 64

// Key names one version of one object in one reply shape.
type Key struct {
	ID      string
	Index   uint64 // the object's ModifyIndex
	Variant uint8
}

// Cache holds encodings of objects of type T.
type Cache[T any] struct {
	seed   maphash.Seed
	shards [shards]shard
	// genBytes is one generation's budget in each shard.
	genBytes int64
	hits     atomic.Int64
	misses   atomic.Int64
}

type shard struct {
	mu         sync.RWMutex
	young, old map[Key][]byte
	youngBytes int64
	oldBytes   int64
}

// New returns a cache that keeps at most about maxBytes of encodings.
func New[T any](maxBytes int64) *Cache[T] {
	c := &Cache[T]{seed: maphash.MakeSeed(), genBytes: max(1, maxBytes/shards/2)}
	for i := range c.shards {
		c.shards[i].young = map[Key][]byte{}
	}
	return c
}

// Get returns the JSON of view(obj), the API form of obj for k.Variant,
// from the cache or by encoding it. k must be obj's ID and ModifyIndex;
// view must depend on nothing but obj and the variant.
func (c *Cache[T]) Get(k Key, obj *T, view func(*T) any) ([]byte, error) {
	s := &c.shards[maphash.String(c.seed, k.ID)%shards]
	s.mu.RLock()
	b, young := s.young[k]
	if !young {
		b = s.old[k]
	}
	s.mu.RUnlock()
	if b != nil {
		c.hits.Add(1)
		if !young {
			s.mu.Lock()
			s.put(k, b, c.genBytes)
			s.mu.Unlock()
		}
		return b, nil
	}
	c.misses.Add(1)
	b, err := json.Marshal(view(obj))
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.put(k, b, c.genBytes)
	s.mu.Unlock()
	return b, nil
}

// put stores b in the young generation, turning it old when full. An
// encoding bigger than a generation is not kept.
func (s *shard) put(k Key, b []byte, genBytes int64) {
	size := int64(len(b) + len(k.ID) + 48)
	if size > genBytes {
		return
	}
	if _, ok := s.young[k]; ok {
		return
	}
	if s.youngBytes+size > genBytes {
		s.old, s.oldBytes = s.young, s.youngBytes
		s.young, s.youngBytes = make(map[Key][]byte, len(s.old)), 0
	}
	s.young[k] = b
	s.youngBytes += size
}

// Stats are a cache's counters.
type Stats struct {
	Bytes, Entries, Hits, Misses int64
}

// Stats returns the bytes and entries held and the hits and misses so
// far.
func (c *Cache[T]) Stats() Stats {
	st := Stats{Hits: c.hits.Load(), Misses: c.misses.Load()}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		st.Bytes += s.youngBytes + s.oldBytes
		st.Entries += int64(len(s.young) + len(s.old))
		s.mu.RUnlock()
	}
	return st
}
