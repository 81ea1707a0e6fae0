package insight

import (
	"slices"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Any what-if question from outside is answered or refused as input (400),
// never an internal error or a panic; an answer only moves allocs off the
// nodes it changed.
func FuzzWhatIfRequest(f *testing.F) {
	c := newCluster(f)
	c.node("a", nil)
	c.node("b", nil)
	c.node("c", func(n *structs.Node) { n.Datacenter = "dc2" })
	c.place(c.job(svc("web", 4, 500, 512)))
	sys := svc("agent", 1, 50, 64)
	sys.Type = structs.JobTypeSystem
	c.place(c.job(sys))
	c.running()
	snap := c.store.Snapshot()
	f.Add("drain", "a", "", int64(0), false)
	f.Add("drain", "b", "", int64(time.Hour), true)
	f.Add("drain", "node-", "", int64(-1), false)
	f.Add("down", "a", "", int64(0), false)
	f.Add("down-dc", "", "dc1", int64(0), false)
	f.Add("down-dc", "", "nope", int64(0), false)
	f.Add("explode", "a", "dc1", int64(5), true)
	f.Add("drain", "", "", int64(0), false)
	f.Fuzz(func(t *testing.T, kind, node, dc string, deadline int64, ignore bool) {
		req := &structs.WhatIfRequest{Kind: kind, Datacenter: dc, Deadline: time.Duration(deadline), IgnoreSystemJobs: ignore}
		if node != "" {
			req.Nodes = []string{node}
		}
		resp, err := WhatIf(snap, testDeps, req)
		if err != nil {
			if !IsInput(err) {
				t.Fatalf("%+v: not an input error: %v", req, err)
			}
			return
		}
		for _, m := range append(slices.Clone(resp.Moves), resp.Stopped...) {
			if !slices.Contains(resp.Nodes, m.From) {
				t.Fatalf("%+v: %s moved off %s, not a changed node %v", req, m.Name, m.From, resp.Nodes)
			}
		}
	})
}
