package state

import "strings"

// interner hands out one shared copy of each string it has seen, so that
// the many objects naming the same node, job, eval or status point at one
// copy instead of each holding the copy its raft entry was decoded into.
//
// Only writers use it, under the store's write lock. It forgets everything
// when it grows past maxInterned, so IDs of objects long gone (evals,
// dispatched jobs) cannot pile up: forgetting only costs sharing.
type interner struct {
	strs map[string]string
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
