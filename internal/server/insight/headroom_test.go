package insight

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
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
		name   string
		change func(*structs.Job)
	}{
		{"resources", nil},
		{"distinct_hosts", func(j *structs.Job) {
			j.TaskGroups[0].Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts}}
		}},
		{"static port", func(j *structs.Job) {
			j.TaskGroups[0].Networks = []*structs.NetworkResource{{ReservedPorts: []structs.Port{{Label: "http", Value: 8080}}}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			c.node("a", nil)
			c.node("b", func(n *structs.Node) { n.NodeResources.MemoryMB = 3000 })
			c.node("c", func(n *structs.Node) { n.NodeResources.CPU.CpuShares = 1700 })
			c.node("d", func(n *structs.Node) { n.Status = structs.NodeStatusDown })
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
			if len(h.N1) != 3 || h.N1Min > h.More || h.N1Worst == "" {
				t.Fatalf("N+1 over the 3 ready nodes: %+v", h.N1)
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
