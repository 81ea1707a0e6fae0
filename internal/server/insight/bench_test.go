package insight

import (
	"fmt"
	"testing"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// bigCluster is nodes nodes (4,000 MHz, 8 GiB) and jobs service jobs of
// perJob running allocs (200 MHz, 400 MB) spread evenly, so each node runs
// nodes*... allocs of distinct jobs.
func bigCluster(b *testing.B, nodes, jobs, perJob int) (*cluster, []*structs.Node, []*structs.Job) {
	c := newCluster(b)
	ns := make([]*structs.Node, nodes)
	for i := range ns {
		ns[i] = c.node(fmt.Sprintf("node-%05d", i), func(n *structs.Node) {
			n.NodeClass = []string{"small", "large"}[i%2]
		})
	}
	js := make([]*structs.Job, jobs)
	var allocs []*structs.Allocation
	for j := range js {
		js[j] = c.job(svc(fmt.Sprintf("job-%04d", j), perJob, 200, 400))
		for k := range perJob {
			i := j*perJob + k
			a := mock.Alloc(fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i), js[j], ns[i%nodes].ID)
			a.Name = structs.AllocName(js[j].ID, "g", uint(k))
			a.TaskGroup = "g"
			a.ClientStatus = structs.AllocClientStatusRunning
			a.AllocatedResources.Tasks = map[string]*structs.AllocatedTaskResources{"web": {CpuShares: 200, MemoryMB: 400}}
			allocs = append(allocs, a)
		}
	}
	c.must(c.store.UpsertAllocs(c.next(), allocs))
	return c, ns, js
}

// BenchmarkExplain: why a job asking more memory than any node has is not
// placed, on 5,000 nodes running 50,000 allocs (the scheduler's run plus
// every node's checks).
func BenchmarkExplain(b *testing.B) {
	c, _, _ := bigCluster(b, 5000, 500, 100)
	job := c.job(svc("huge", 3, 500, 14463))
	snap := c.store.Snapshot()
	b.ResetTimer()
	for range b.N {
		resp, err := ExplainJob(snap, testDeps, job, ExplainOptions{})
		if err != nil || len(resp.Groups) != 1 || resp.Groups[0].Unplaced != 3 {
			b.Fatalf("%v %+v", err, resp)
		}
	}
}

// BenchmarkHeadroom: how many more of a group fit on 5,000 nodes running
// 50,000 allocs (one fits per node), with N+1 over every node (each runs
// allocs of 10 other jobs: the 3 worst losses are played as what-ifs).
func BenchmarkHeadroom(b *testing.B) {
	c, _, _ := bigCluster(b, 5000, 500, 100)
	job := c.job(svc("wide", 10, 1500, 3000))
	c.place(job)
	snap := c.store.Snapshot()
	b.ResetTimer()
	for range b.N {
		h, err := Headroom(snap, testDeps, job, "g")
		if err != nil || h.More != 4990 || len(h.N1) != 5000 || h.N1Min != 4989 {
			b.Fatalf("%v %+v", err, h)
		}
	}
}

// BenchmarkWhatIfDrain: a what-if drain of 100 nodes on 5,000 nodes
// running 50,000 allocs: 1,000 allocs migrated one per group at a time
// (migrate max_parallel 1), as the real drainer would.
func BenchmarkWhatIfDrain(b *testing.B) {
	c, ns, _ := bigCluster(b, 5000, 500, 100)
	var names []string
	for _, n := range ns[:100] {
		names = append(names, n.ID)
	}
	snap := c.store.Snapshot()
	b.ResetTimer()
	for range b.N {
		r, err := WhatIf(snap, testDeps, &structs.WhatIfRequest{Kind: WhatIfDrain, Nodes: names})
		if err != nil || len(r.Moves) != 1000 {
			b.Fatalf("%v: %d moves, %d unplaced", err, len(r.Moves), len(r.Unplaced))
		}
		b.ReportMetric(float64(r.Evals), "evals")
	}
}
