package planapply

import "github.com/drover-project/drover/internal/structs"

// smallSet is the size up to which idSet scans instead of hashing: most
// nodes in a plan carry one or two allocs, and a map would cost more
// than a few string comparisons.
const smallSet = 8

// idSet is the set of alloc IDs a plan removes from (or replaces on) one
// node.
type idSet struct {
	lists [3][]*structs.Allocation
	n     int
	m     map[string]struct{}
}

func newIDSet(a, b, c []*structs.Allocation) idSet {
	s := idSet{lists: [3][]*structs.Allocation{a, b, c}, n: len(a) + len(b) + len(c)}
	if s.n > smallSet {
		s.m = make(map[string]struct{}, s.n)
		for _, l := range s.lists {
			for _, x := range l {
				s.m[x.ID] = struct{}{}
			}
		}
	}
	return s
}

func (s idSet) has(id string) bool {
	if s.m != nil {
		_, ok := s.m[id]
		return ok
	}
	for _, l := range s.lists {
		for _, x := range l {
			if x.ID == id {
				return true
			}
		}
	}
	return false
}
