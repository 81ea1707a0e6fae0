package state

import (
	"slices"
	"strconv"
	"strings"
)

// interner hands out one shared copy of each string it has seen, so that
// the many objects naming the same node, job, eval or status point at one
// copy instead of each holding the copy its raft entry was decoded into.
//
// Only writers use it, under the store's write lock. It forgets everything
// when it grows past maxInterned, so IDs of objects long gone (evals,
// dispatched jobs) cannot pile up: forgetting only costs sharing.
type interner struct {
	strs   map[string]string
	counts map[string]map[string]int // see internCounts
}

// maxInterned bounds the interner: about 10,000 nodes with their names,
// their jobs and groups, and the evals of recent plans fit.
const maxInterned = 1 << 16

func (in *interner) intern(s string) string {
	if s == "" || in == nil {
		return s
	}
	if c, ok := in.strs[s]; ok {
		return c
	}
	if in.strs == nil || len(in.strs) >= maxInterned {
		in.strs = make(map[string]string, 1024)
	}
	s = strings.Clone(s) // never pin a larger buffer s may be part of
	in.strs[s] = s
	return s
}

// internCounts returns one shared copy of each small count map it has
// seen (an eval's QueuedAllocations: the evals of a job carry the same
// few counts, and a map of one entry costs ~250 bytes). Maps read from
// the store are immutable, so sharing them changes nothing a reader sees.
func (in *interner) internCounts(m map[string]int) map[string]int {
	if in == nil || len(m) == 0 || len(m) > 4 {
		return m
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(strconv.Itoa(m[k]))
		b.WriteByte(0)
	}
	key := b.String()
	if c, ok := in.counts[key]; ok {
		return c
	}
	if in.counts == nil || len(in.counts) >= maxInterned {
		in.counts = make(map[string]map[string]int, 64)
	}
	in.counts[key] = m
	return m
}
