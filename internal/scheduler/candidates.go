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
	if !sameList(m.all, all) || len(m.byJob) >= maxCandidateEntries {
		m.all, m.byJob = all, map[string]*candidates{}
	}
	if c, ok := m.byJob[key]; ok {
		return c
	}
	c := filterCandidates(job, all)
	m.byJob[key] = c
	return c
}

func sameList(a, b []*structs.Node) bool {
	return len(a) == len(b) && len(a) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}

func filterCandidates(job *structs.Job, all []*structs.Node) *candidates {
	c := &candidates{nodes: make([]*structs.Node, 0, len(all)), nodesAvailable: map[string]int{}}
	ready, dc, pool := readyFilter(), datacenterFilter(job), poolFilter(job)
	for _, n := range all {
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
	}
	return c
}
