package scheduler

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/drover-project/drover/internal/structs"
)

// candidates are the nodes a job may be placed on before any task group
// filter: ready, in one of its datacenters and in its pool.
type candidates struct {
	nodes          []*structs.Node // in the order of the node list
	pos            []int32         // each node's position in the node list
	nodesAvailable map[string]int  // per datacenter; shared, read only
	nodesInPool    int
}

// candidateMemo remembers candidates for the node list of the latest
// snapshot, across the evals of one set of schedulers (Builtins makes
// one and shares it with every scheduler it builds). The state store
// hands every eval at the same nodes-table version the same shared list,
// and walking thousands of nodes per eval cost a fifth of the scheduling
// time of a small job. It keys on the list's backing array and holds the
// list, so the array cannot be freed and its address reused while an
// entry refers to it.
type candidateMemo struct {
	mu    sync.Mutex
	all   []*structs.Node
	byJob map[string]*candidates
	// sorted says whether all is sorted by ID (sortedKnown: checked).
	sorted, sortedKnown bool
}

// maxCandidateEntries bounds the memo: one entry per distinct
// (pool, datacenters) of the jobs scheduled since the last node change.
const maxCandidateEntries = 64

// jobCandidates returns the candidates of job among all, memoized while
// all is the same shared list. A nil memo filters every time.
func (m *candidateMemo) jobCandidates(job *structs.Job, all []*structs.Node) *candidates {
	if m == nil {
		return filterCandidates(job, all)
	}
	key := job.NodePool + "\x00" + strings.Join(job.Datacenters, "\x00")
	m.mu.Lock()
	defer m.mu.Unlock()
	m.use(all)
	if len(m.byJob) >= maxCandidateEntries {
		m.byJob = map[string]*candidates{}
	}
	if c, ok := m.byJob[key]; ok {
		return c
	}
	c := filterCandidates(job, all)
	m.byJob[key] = c
	return c
}

// use forgets what the memo knows unless all is the list it knows.
func (m *candidateMemo) use(all []*structs.Node) {
	if !sameList(m.all, all) {
		m.all, m.byJob, m.sortedKnown = all, map[string]*candidates{}, false
	}
}

// sortedByID reports whether the node list is sorted by ID (as
// State.NodeSet's is), memoized while all is the same shared list. A nil
// memo checks every time.
func (m *candidateMemo) sortedByID(all []*structs.Node) bool {
	if m == nil {
		return isSortedByID(all)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.use(all)
	if !m.sortedKnown {
		m.sorted, m.sortedKnown = isSortedByID(all), true
	}
	return m.sorted
}

// isSortedByID reports whether the IDs strictly increase along the list.
func isSortedByID(all []*structs.Node) bool {
	for i := 1; i < len(all); i++ {
		if all[i-1].ID >= all[i].ID {
			return false
		}
	}
	return true
}

func sameList(a, b []*structs.Node) bool {
	return len(a) == len(b) && len(a) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}

func filterCandidates(job *structs.Job, all []*structs.Node) *candidates {
	c := &candidates{nodes: make([]*structs.Node, 0, len(all)), pos: make([]int32, 0, len(all)), nodesAvailable: map[string]int{}}
	ready, dc, pool := readyFilter(), datacenterFilter(job), poolFilter(job)
	for i, n := range all {
		if ok, _ := pool.filter(n); !ok {
			continue
		}
		c.nodesInPool++
		if ok, _ := dc.filter(n); !ok {
			continue
		}
		if ok, _ := ready.filter(n); !ok {
			continue
		}
		c.nodesAvailable[n.Datacenter]++
		c.nodes = append(c.nodes, n)
		c.pos = append(c.pos, int32(i))
	}
	return c
}
