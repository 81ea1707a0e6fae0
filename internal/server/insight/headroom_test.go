package insight

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// scaleTo registers the job again with the group's count changed and runs
// the real scheduler; it returns how many stayed unplaced.
func scaleTo(c *cluster, job *structs.Job, count int) int {
	j := job.Copy()
	j.TaskGroups[0].Count = count
	stored := c.job(j)
	return unplacedOf(c.place(stored), "g")
}

// Headroom is the count at which the real scheduler starts to block: the
// group scaled up by it places everything, one more blocks.
func TestHeadroom_MatchesWhereTheSchedulerBlocks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(*structs.Job)
		inexact bool // the answer is placed one by one, not summed
	}{
		{"resources", nil, false},
		{"distinct_hosts", func(j *structs.Job) {
			j.TaskGroups[0].Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts}}
		}, false},
		{"static port", func(j *structs.Job) {
			j.TaskGroups[0].Networks = []*structs.NetworkResource{{ReservedPorts: []structs.Port{{Label: "http", Value: 8080}}}}
		}, false},
		{"dynamic ports", func(j *structs.Job) {
			j.TaskGroups[0].Networks = []*structs.NetworkResource{{DynamicPorts: []structs.Port{{Label: "http"}, {Label: "admin"}}}}
		}, false},
		{"spread with targets", func(j *structs.Job) {
			j.TaskGroups[0].Spreads = []*structs.Spread{{Attribute: "${meta.rack}", Weight: 100,
				SpreadTarget: []*structs.SpreadTarget{{Value: "r1", Percent: 80}, {Value: "r2", Percent: 20}}}}
		}, false},
		{"constraint", func(j *structs.Job) {
			j.Constraints = append(j.Constraints, &structs.Constraint{LTarget: "${meta.rack}", RTarget: "r2", Operand: "!="})
		}, false},
		{"distinct_property", func(j *structs.Job) {
			j.TaskGroups[0].Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctProperty, LTarget: "${meta.rack}", RTarget: "3"}}
		}, true},
		{"two groups", func(j *structs.Job) {
			side := j.TaskGroups[0].Copy()
			side.Name, side.Count = "side", 2
			side.Tasks[0].Resources = &structs.Resources{CPU: 300, MemoryMB: 1200}
			j.TaskGroups = append(j.TaskGroups, side)
		}, false},
		{"job-level distinct_hosts with two groups", func(j *structs.Job) {
			side := j.TaskGroups[0].Copy()
			side.Name, side.Count = "side", 1
			j.TaskGroups = append(j.TaskGroups, side)
			j.Constraints = append(j.Constraints, &structs.Constraint{Operand: structs.ConstraintDistinctHosts})
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			c.node("f", func(n *structs.Node) { n.Meta = map[string]string{"rack": "r2"}; n.NodeResources.MemoryMB = 1000 })
			c.node("a", func(n *structs.Node) { n.Meta = map[string]string{"rack": "r1"} })
			c.node("b", func(n *structs.Node) { n.NodeResources.MemoryMB = 3000; n.Meta = map[string]string{"rack": "r2"} })
			c.node("c", func(n *structs.Node) { n.NodeResources.CPU.CpuShares = 1700; n.Meta = map[string]string{"rack": "r1"} })
			c.node("d", func(n *structs.Node) { n.Status = structs.NodeStatusDown })
			c.node("e", func(n *structs.Node) { // reserves most of what it has
				n.Meta = map[string]string{"rack": "r1"}
				n.ReservedResources = &structs.NodeReservedResources{CpuShares: 2900, MemoryMB: 6000, ReservedPorts: "8080"}
			})
			other := c.job(svc("other", 3, 900, 1500))
			c.place(other)
			spec := svc("web", 2, 500, 700)
			if tc.change != nil {
				tc.change(spec)
			}
			job := c.job(spec)
			if got := unplacedOf(c.place(job), "g"); got != 0 {
				t.Fatalf("initial placement left %d", got)
			}
			c.running()
			h, err := Headroom(c.store.Snapshot(), testDeps, job, "g")
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("headroom %d (blocker %q), per node %v, N+1 min %d (worst %s): %+v", h.More, h.Blocker, h.PerNode, h.N1Min, h.N1Worst, h.N1)
			if h.More <= 0 || h.Current != 2 {
				t.Fatalf("headroom: %+v", h)
			}
			if len(h.N1) != 5 || h.N1Min > h.More || h.N1Worst == "" {
				t.Fatalf("N+1 over the 5 ready nodes: %+v", h.N1)
			}
			// The sum of the per-node fits is the one-by-one answer,
			// blocker and nodes included.
			snap := c.store.Snapshot()
			f, err := fitsOf(snap, job, "g")
			if err != nil {
				t.Fatal(err)
			}
			if (f.inexact != "") != tc.inexact {
				t.Fatalf("fits inexact %q, want inexact %v", f.inexact, tc.inexact)
			}
			slow, err := headroomBySchedule(snap, testDeps, job, "g", true, 0)
			if err != nil {
				t.Fatal(err)
			}
			if slow.more != h.More || !maps.Equal(slow.perNode, h.PerNode) || slow.blocker != h.Blocker {
				t.Fatalf("one by one: %d %v %q; answer %d %v %q", slow.more, slow.perNode, slow.blocker, h.More, h.PerNode, h.Blocker)
			}
			if got := scaleTo(c, job, 2+h.More); got != 0 {
				t.Fatalf("count %d (headroom %d): the scheduler left %d unplaced", 2+h.More, h.More, got)
			}
			if got := scaleTo(c, job, 2+h.More+1); got != 1 {
				t.Fatalf("count %d (headroom %d + 1): the scheduler left %d unplaced, want 1", 2+h.More+1, h.More, got)
			}
		})
	}
}

// The N+1 answer for a node matches the headroom left after the node is
// really lost: its allocs replaced elsewhere first.
func TestHeadroom_NodeLossMatchesTheSchedulerAfterTheLoss(t *testing.T) {
	c := newCluster(t)
	a := c.node("a", nil)
	c.node("b", nil)
	c.node("c", func(n *structs.Node) { n.NodeResources.MemoryMB = 4000 })
	job := c.job(svc("web", 4, 500, 1000))
	c.place(job)
	c.running()
	h, err := Headroom(c.store.Snapshot(), testDeps, job, "g")
	if err != nil {
		t.Fatal(err)
	}
	var lossA *structs.NodeLoss
	for _, l := range h.N1 {
		if l.Name == "a" {
			lossA = l
		}
	}
	if lossA == nil {
		t.Fatalf("no N+1 for a: %+v", h.N1)
	}
	// Lose a for real: the node goes down and the job's eval replaces its allocs.
	down := a.Copy()
	down.Status = structs.NodeStatusDown
	c.must(c.store.UpsertNode(c.next(), down))
	c.place(job)
	c.running()
	after, err := Headroom(c.store.Snapshot(), testDeps, job, "g")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("headroom %d; N+1 for a %d; after losing a %d", h.More, lossA.More, after.More)
	if after.More != lossA.More || lossA.More >= h.More {
		t.Fatalf("N+1 for a says %d, after losing a the headroom is %d (before %d)", lossA.More, after.More, h.More)
	}
}

// A hypothetical shape: how many allocs of 1000 MHz / 1024 MB fit.
func TestHeadroom_Shape(t *testing.T) {
	c := newCluster(t)
	c.node("a", nil) // 4000 MHz, 8192 MB
	c.node("b", func(n *structs.Node) { n.NodeResources.MemoryMB = 2048 })
	h, err := HeadroomShape(c.store.Snapshot(), testDeps, &structs.OperatorHeadroomRequest{CPU: 1000, MemoryMB: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if h.More != 6 || h.PerNode == nil {
		t.Fatalf("shape headroom: %+v", h) // 4 on a (cpu), 2 on b (memory)
	}
	contains(t, "blocker", []string{h.Blocker}, "no eligible node has all of 1,000 MHz cpu, 1,024 MB memory at once; the closest is node ")
	if _, err := HeadroomShape(c.store.Snapshot(), testDeps, &structs.OperatorHeadroomRequest{}); err == nil {
		t.Fatal("an empty shape was accepted")
	}
}

// slowLoss is N+1 for one node computed the slow way: the node's loss
// played as a what-if, then the group placed one by one on the result.
func slowLoss(t *testing.T, st scheduler.State, job *structs.Job, group, nodeID string) int {
	t.Helper()
	w, err := newWhatIf(st, testDeps, &structs.WhatIfRequest{Kind: WhatIfDown, Nodes: []string{nodeID}})
	if err == nil {
		err = w.run()
	}
	if err != nil {
		t.Fatal(err)
	}
	r, err := headroomBySchedule(w.ov, testDeps, job, group, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	return r.more
}

// N+1 over every node against the slow computation (every loss played as
// a what-if, the group placed one by one after it) on random small
// clusters: the answer agrees for every node and so do the minimum and
// the worst node; the formula alone (no what-if) agrees wherever the lost
// node holds nothing but the group, and is never below the real answer.
func TestHeadroom_NodeLossesMatchTheSlowComputation(t *testing.T) {
	agreeFormula, boundFormula := 0, 0
	for seed := range uint64(24) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 33))
			c := newCluster(t)
			for i := range 3 + r.IntN(5) {
				c.node(fmt.Sprintf("n%d", i), func(n *structs.Node) {
					n.NodeResources.CPU.CpuShares = int64(1000 + 500*r.IntN(7))
					n.NodeResources.MemoryMB = int64(1024 * (1 + r.IntN(8)))
					if r.IntN(3) == 0 {
						n.ReservedResources = &structs.NodeReservedResources{CpuShares: 300, MemoryMB: 512}
					}
				})
			}
			// Other jobs take some room first (none on some seeds).
			for j := range r.IntN(3) {
				o := c.job(svc(fmt.Sprintf("other%d", j), 1+r.IntN(4), 100*(1+r.IntN(8)), 256*(1+r.IntN(8))))
				c.place(o)
			}
			spec := svc("web", 1+r.IntN(4), 100*(1+r.IntN(10)), 256*(1+r.IntN(10)))
			switch r.IntN(4) {
			case 0:
				spec.TaskGroups[0].Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts}}
			case 1:
				spec.TaskGroups[0].Networks = []*structs.NetworkResource{{ReservedPorts: []structs.Port{{Label: "http", Value: 9090}}}}
			}
			job := c.job(spec)
			c.place(job)
			c.running()
			snap := c.store.Snapshot()
			h, err := Headroom(snap, testDeps, job, "g")
			if err != nil {
				t.Fatal(err)
			}
			f, err := fitsOf(snap, job, "g")
			if err != nil || f.inexact != "" {
				t.Fatalf("fits: %v %q", err, f.inexact)
			}
			nodes, _, _ := snap.NodeSet(nil)
			others, _, err := othersOn(snap, nodes, job, "g", f)
			if err != nil {
				t.Fatal(err)
			}
			minSlow, worst := h.More, ""
			for _, l := range h.N1 {
				slow := slowLoss(t, snap, job, "g", l.NodeID)
				formula := f.lossMore(l.NodeID)
				t.Logf("lose %s: answer %d, slow %d, formula %d, others %d", l.Name, l.More, slow, formula, others[l.NodeID])
				if l.More != slow || l.UpperBound {
					t.Fatalf("losing %s: answer %d (upper bound %v), the scheduler after the loss %d", l.Name, l.More, l.UpperBound, slow)
				}
				switch {
				case others[l.NodeID] == 0 && formula != slow:
					t.Fatalf("losing %s (nothing else on it): formula %d, slow %d", l.Name, formula, slow)
				case formula < slow:
					t.Fatalf("losing %s: formula %d below the real %d", l.Name, formula, slow)
				case others[l.NodeID] == 0:
					agreeFormula++
				default:
					boundFormula++
				}
				if worst == "" || slow < minSlow {
					minSlow, worst = slow, l.Name
				}
			}
			if len(h.N1) != len(nodes) {
				t.Fatalf("N+1 over %d of %d nodes", len(h.N1), len(nodes))
			}
			if h.N1Min != minSlow || h.N1[0].More != minSlow {
				t.Fatalf("N+1 min %d (%s), slow min %d (%s)", h.N1Min, h.N1Worst, minSlow, worst)
			}
		})
	}
	t.Logf("formula alone: equal on %d losses, an upper bound on %d", agreeFormula, boundFormula)
	if agreeFormula == 0 || boundFormula == 0 {
		t.Fatalf("the seeds do not cover both cases: %d equal, %d bounds", agreeFormula, boundFormula)
	}
}

// On a large cluster, losses that move nothing but the group are the
// formula's exact answer; the others are upper bounds unless played as
// what-ifs, and a group that cannot be re-placed is negative.
func TestHeadroom_NodeLossesOnALargeCluster(t *testing.T) {
	c := newCluster(t)
	for i := range 20 {
		c.node(fmt.Sprintf("n%02d", i), func(n *structs.Node) { n.NodeResources.MemoryMB = 2048 })
	}
	// Each node takes one alloc of 1,500 MB: web runs on 18 of them, a
	// filler job on the 2 others.
	filler := c.job(svc("filler", 2, 100, 1000))
	c.place(filler)
	job := c.job(svc("web", 18, 100, 1500))
	c.place(job)
	c.running()
	snap := c.store.Snapshot()
	h, err := Headroom(snap, testDeps, job, "g")
	if err != nil {
		t.Fatal(err)
	}
	if h.More != 0 || len(h.N1) != 20 {
		t.Fatalf("headroom %d, N+1 over %d nodes", h.More, len(h.N1))
	}
	played, bounds := 0, 0
	for _, l := range h.N1 {
		slow := slowLoss(t, snap, job, "g", l.NodeID)
		switch {
		case l.Others == 0 && (l.More != slow || l.UpperBound):
			t.Fatalf("losing %s (only web on it): %d, the scheduler %d", l.Name, l.More, slow)
		case l.UpperBound && l.More < slow:
			t.Fatalf("losing %s: bound %d below the real %d", l.Name, l.More, slow)
		case l.UpperBound:
			bounds++
		case l.Others > 0:
			played++
			if l.More != slow {
				t.Fatalf("losing %s (played): %d, the scheduler %d", l.Name, l.More, slow)
			}
		}
	}
	// Losing a web node leaves -1 (exact); losing a filler node at best 0,
	// at worst -1 (its filler alloc takes one place): no lower bound is
	// below -1, so neither is played.
	if h.N1Min != -1 || played != 0 || bounds != 2 {
		t.Fatalf("N+1 min %d (%s), %d played, %d bounds: %+v", h.N1Min, h.N1Worst, played, bounds, h.N1)
	}
}

// On clusters over smallCluster nodes, N+1's minimum and worst node are
// exact although not every loss is played: seeded random clusters of
// 17-22 nodes with other jobs on them, each loss also played the slow way.
func TestHeadroom_N1MinimumIsExactOnLargeClusters(t *testing.T) {
	played := 0
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 71))
			c := newCluster(t)
			for i := range 17 + r.IntN(6) {
				c.node(fmt.Sprintf("n%02d", i), func(n *structs.Node) {
					n.NodeResources.CPU.CpuShares = int64(1000 + 500*r.IntN(5))
					n.NodeResources.MemoryMB = int64(1024 * (1 + r.IntN(6)))
				})
			}
			for j := range 1 + r.IntN(4) {
				c.place(c.job(svc(fmt.Sprintf("other%d", j), 2+r.IntN(8), 100*(1+r.IntN(6)), 256*(1+r.IntN(8)))))
			}
			spec := svc("web", 2+r.IntN(10), 100*(1+r.IntN(8)), 256*(1+r.IntN(8)))
			if r.IntN(3) == 0 {
				spec.TaskGroups[0].Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts}}
			}
			job := c.job(spec)
			c.place(job)
			c.running()
			snap := c.store.Snapshot()
			h, err := Headroom(snap, testDeps, job, "g")
			if err != nil {
				t.Fatal(err)
			}
			minSlow := math.MaxInt
			for _, l := range h.N1 {
				slow := slowLoss(t, snap, job, "g", l.NodeID)
				switch {
				case !l.UpperBound && l.More != slow:
					t.Fatalf("losing %s: answer %d, the scheduler %d", l.Name, l.More, slow)
				case l.UpperBound && l.More < slow:
					t.Fatalf("losing %s: bound %d below the real %d", l.Name, l.More, slow)
				case !l.UpperBound && l.Others > 0:
					played++
				}
				minSlow = min(minSlow, slow)
			}
			if h.N1Min != minSlow || h.N1[0].UpperBound && h.N1[0].More != minSlow {
				t.Fatalf("N+1 min %d (%s), the scheduler's %d", h.N1Min, h.N1Worst, minSlow)
			}
			for _, l := range h.N1 {
				if l.Name == h.N1Worst && slowLoss(t, snap, job, "g", l.NodeID) != minSlow {
					t.Fatalf("worst node %s loses more than the minimum %d", l.Name, minSlow)
				}
			}
		})
	}
	t.Logf("%d losses of nodes holding other allocs were played", played)
}

// The worked example of docs/insight.md ("drover job headroom reports"):
// its cluster laid out as the page describes, and the answer it prints.
func TestHeadroom_DocsExample(t *testing.T) {
	c := newCluster(t)
	web := func(n *structs.Node) {
		n.NodeClass = "general"
		n.NodeResources.CPU.CpuShares, n.NodeResources.MemoryMB = 8000, 16384
	}
	w1, w2, w3 := c.node("web-1", web), c.node("web-2", web), c.node("web-3", web)
	c.node("gpu-1", func(n *structs.Node) {
		n.NodeClass, n.NodeResources.MemoryMB = "gpu", 32768
		delete(n.Drivers, "docker")
		delete(n.Attributes, "driver.docker")
	})
	docker := func(j *structs.Job) *structs.Job {
		j.TaskGroups[0].Tasks[0].Driver = "docker"
		return c.job(j)
	}
	reports := svc("reports", 3, 500, 6742)
	reports.Priority = 30
	jobs := map[string]*structs.Job{"reports": docker(reports), "cache": docker(svc("cache", 2, 500, 8000))}
	ingress := svc("ingress", 4, 100, 128)
	ingress.TaskGroups[0].Networks = []*structs.NetworkResource{{ReservedPorts: []structs.Port{{Label: "http", Value: 80}}}}
	ingress.TaskGroups[0].Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts}}
	jobs["ingress"] = docker(ingress)
	docker(svc("win", 1, 100, 100)) // never placed: not part of the answer
	var allocs []*structs.Allocation
	for i, p := range []struct {
		job  string
		node *structs.Node
	}{{"reports", w1}, {"reports", w2}, {"reports", w3}, {"cache", w1}, {"cache", w2}, {"ingress", w1}, {"ingress", w2}, {"ingress", w3}} {
		j := jobs[p.job]
		a := mock.Alloc(fmt.Sprintf("%08d-0000-4000-8000-000000000000", i), j, p.node.ID)
		a.Name = structs.AllocName(j.ID, "g", uint(i%3))
		a.TaskGroup, a.ClientStatus = "g", structs.AllocClientStatusRunning
		r := j.TaskGroups[0].Tasks[0].Resources
		a.AllocatedResources.Tasks = map[string]*structs.AllocatedTaskResources{"web": {CpuShares: int64(r.CPU), MemoryMB: int64(r.MemoryMB)}}
		a.AllocatedResources.Shared.DiskMB = 300
		if p.job == "ingress" {
			a.AllocatedResources.Shared.Ports = []structs.AllocatedPortMapping{{Label: "http", Value: 80}}
		}
		allocs = append(allocs, a)
	}
	c.must(c.store.UpsertAllocs(c.next(), allocs))
	h, err := Headroom(c.store.Snapshot(), testDeps, jobs["reports"], "g")
	if err != nil {
		t.Fatal(err)
	}
	var n1 []string
	for _, l := range h.N1 {
		n1 = append(n1, fmt.Sprintf("%s %d", l.Name, l.More))
	}
	got := fmt.Sprintf("%d more; next: %s; per node %v; N+1 %v; worst %s (%d)", h.More, h.Blocker, h.PerNode, n1, h.N1Worst, h.N1Min)
	want := "1 more; next: needs 6,742 MB memory; the largest free is 2,772 MB on node web-3; preemption would not help: no node fits even with every alloc of priority <= 20 evicted (preemption is off for service jobs); " +
		"per node map[web-3:1]; N+1 [web-3 -1 web-1 -1 web-2 -1 gpu-1 1]; worst web-3 (-1)"
	if got != want {
		t.Fatalf("got\n%s\nthe page says\n%s", got, want)
	}
}

// Allocs of an older version of the job: updated in place after a count
// change (the sum stays exact), replaced after a resource change (placed
// one by one); either way the answer is where the scheduler blocks.
func TestHeadroom_OlderVersions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(*structs.Job)
		inexact bool
	}{
		{"count raised", func(j *structs.Job) { j.TaskGroups[0].Count = 3 }, false},
		{"memory changed", func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Resources.MemoryMB = 900 }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			c.node("a", nil)
			c.node("b", func(n *structs.Node) { n.NodeResources.MemoryMB = 3000 })
			job := c.job(svc("web", 2, 500, 700))
			c.place(job)
			c.running()
			next := job.Copy()
			tc.change(next)
			job = c.job(next)
			if job.Version != 1 {
				t.Fatalf("version %d", job.Version)
			}
			snap := c.store.Snapshot()
			f, err := fitsOf(snap, job, "g")
			if err != nil {
				t.Fatal(err)
			}
			if (f.inexact != "") != tc.inexact {
				t.Fatalf("fits inexact %q, want inexact %v", f.inexact, tc.inexact)
			}
			h, err := Headroom(snap, testDeps, job, "g")
			if err != nil {
				t.Fatal(err)
			}
			slow, err := headroomBySchedule(snap, testDeps, job, "g", true, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("headroom %d (%q), one by one %d", h.More, h.Blocker, slow.more)
			if slow.more != h.More || slow.blocker != h.Blocker || h.More <= 0 {
				t.Fatalf("answer %d %q, one by one %d %q", h.More, h.Blocker, slow.more, slow.blocker)
			}
			count := job.TaskGroups[0].Count
			if got := scaleTo(c, job, count+h.More); got != 0 {
				t.Fatalf("count %d: %d unplaced", count+h.More, got)
			}
			if got := scaleTo(c, job, count+h.More+1); got != 1 {
				t.Fatalf("count %d: %d unplaced, want 1", count+h.More+1, got)
			}
		})
	}
}

// A node whose dynamic port range runs out before its memory: the fits
// would be exact but the blocker's stand-ins claim no dynamic ports, so
// the answer is placed one by one, and it is where the scheduler blocks.
func TestHeadroom_DynamicPortsRunOut(t *testing.T) {
	c := newCluster(t)
	c.node("a", func(n *structs.Node) { n.NodeResources.MinDynamicPort, n.NodeResources.MaxDynamicPort = 20000, 20004 })
	c.node("b", nil)
	spec := svc("web", 1, 100, 100)
	spec.TaskGroups[0].Networks = []*structs.NetworkResource{{DynamicPorts: []structs.Port{{Label: "http"}, {Label: "admin"}}}}
	job := c.job(spec)
	c.place(job)
	c.running()
	snap := c.store.Snapshot()
	f, err := fitsOf(snap, job, "g")
	if err != nil || f.inexact == "" {
		t.Fatalf("fits: %v, inexact %q", err, f.inexact)
	}
	h, err := Headroom(snap, testDeps, job, "g")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("headroom %d (%q), per node %v (%s)", h.More, h.Blocker, h.PerNode, f.inexact)
	if h.PerNode["a"] > 2 || h.More <= 0 {
		t.Fatalf("node a has 5 dynamic ports for allocs of 2: %+v", h)
	}
	if got := scaleTo(c, job, 1+h.More); got != 0 {
		t.Fatalf("count %d: %d unplaced", 1+h.More, got)
	}
	if got := scaleTo(c, job, 2+h.More); got != 1 {
		t.Fatalf("count %d: %d unplaced, want 1", 2+h.More, got)
	}
}
