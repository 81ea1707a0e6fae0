package insight

import (
	"fmt"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

func explain(t *testing.T, c *cluster, job *structs.Job, group string) *structs.GroupExplanation {
	t.Helper()
	resp, err := ExplainJob(c.store.Snapshot(), testDeps, job, ExplainOptions{Group: group})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Groups) != 1 {
		t.Fatalf("groups: %+v", resp.Groups)
	}
	g := resp.Groups[0]
	t.Logf("reasons: %s", reasonsString(g))
	t.Logf("fixes:\n  %s", strings.Join(g.Fixes, "\n  "))
	return g
}

func reasonsString(g *structs.GroupExplanation) string {
	var parts []string
	for _, r := range g.Reasons {
		parts = append(parts, fmt.Sprintf("%s x%d (%s)", r.Reason, r.Count, r.Example))
	}
	return strings.Join(parts, "; ")
}

// A job asking more memory than any node has free: the real scheduler
// leaves it unplaced, and the explanation gives the ask, the largest free
// amount and its node, and whether preemption would help.
func TestExplain_BlockedByMemory(t *testing.T) {
	c := newCluster(t)
	big := func(n *structs.Node) { n.NodeResources.MemoryMB = 16384 }
	nodes := []*structs.Node{c.node("a", big), c.node("b", big), c.node("c", big)}
	filler := svc("filler", 3, 100, 100)
	filler.Priority = 30
	filler = c.job(filler)
	for i, used := range []int64{8000, 6742, 10000} {
		a := mock.Alloc(fmt.Sprintf("f%07d-0000-4000-8000-000000000000", i), filler, nodes[i].ID)
		a.Name = structs.AllocName(filler.ID, "g", uint(i))
		a.TaskGroup = "g"
		a.AllocatedResources.Tasks = map[string]*structs.AllocatedTaskResources{"web": {CpuShares: 100, MemoryMB: used}}
		c.must(c.store.UpsertAllocs(c.next(), []*structs.Allocation{a}))
	}
	job := c.job(svc("big", 1, 500, 14463))
	if got := unplacedOf(c.place(job), "g"); got != 1 {
		t.Fatalf("the real scheduler left %d unplaced, want 1", got)
	}
	g := explain(t, c, job, "g")
	if g.Unplaced != 1 || g.Fit != 0 || g.Reasons[0].Reason != "memory" || g.Reasons[0].Count != 3 {
		t.Fatalf("explanation: %+v, reasons %s", g, reasonsString(g))
	}
	contains(t, "reason", []string{g.Reasons[0].Example}, "memory: asked 14,463 MB, free ")
	contains(t, "fixes", g.Fixes, "needs 14,463 MB memory; the largest free is 9,642 MB on node b; 3 nodes would fit if allocs of priority <= 40 were preempted (preemption is off for service jobs)")
	contains(t, "fixes", g.Fixes, "3 nodes would fit if allocs of priority <= 40 were preempted (preemption is off for service jobs)")
}

// A constraint no node satisfies: the explanation names it with the
// nodes' values and says it excludes all of them.
func TestExplain_BlockedByConstraint(t *testing.T) {
	c := newCluster(t)
	for i := range 40 {
		c.node(fmt.Sprintf("n%02d", i), nil)
	}
	spec := svc("win", 1, 100, 100)
	spec.Constraints = []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "windows", Operand: "="}}
	job := c.job(spec)
	if got := unplacedOf(c.place(job), "g"); got != 1 {
		t.Fatalf("the real scheduler left %d unplaced, want 1", got)
	}
	g := explain(t, c, job, "g")
	if g.Reasons[0].Count != 40 || g.Reasons[0].Step != "constraint" {
		t.Fatalf("reasons: %s", reasonsString(g))
	}
	contains(t, "reason", []string{g.Reasons[0].Example}, `constraint ${attr.kernel.name} = windows: the node's ${attr.kernel.name} is "linux"`)
	contains(t, "fixes", g.Fixes, "constraint `${attr.kernel.name} = windows` (nodes have linux x40) excludes all 40 nodes; without it 40 more nodes would take the alloc")
}

// A task driver no node has.
func TestExplain_BlockedByMissingDriver(t *testing.T) {
	c := newCluster(t)
	noDocker := func(n *structs.Node) {
		delete(n.Drivers, "docker")
		delete(n.Attributes, "driver.docker")
	}
	c.node("a", noDocker)
	c.node("b", noDocker)
	c.node("c", nil)
	spec := svc("dock", 3, 100, 100)
	spec.TaskGroups[0].Tasks[0].Driver = "docker"
	spec.Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts}}
	job := c.job(spec)
	if got := unplacedOf(c.place(job), "g"); got != 2 {
		t.Fatalf("the real scheduler left %d unplaced, want 2", got)
	}
	g := explain(t, c, job, "g")
	contains(t, "reasons", []string{reasonsString(g)}, "driver docker x2 (a: missing driver docker)")
	contains(t, "fixes", g.Fixes, "driver docker excludes 2 of 3 nodes; without it 2 more nodes would take the alloc")
	contains(t, "fixes", g.Fixes, "count 3 with distinct_hosts on 1 eligible nodes")
}

// distinct_hosts with a count above the eligible nodes.
func TestExplain_BlockedByDistinctHosts(t *testing.T) {
	c := newCluster(t)
	for _, n := range []string{"a", "b", "c"} {
		c.node(n, nil)
	}
	spec := svc("spread", 5, 100, 100)
	spec.TaskGroups[0].Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts, RTarget: "true"}}
	job := c.job(spec)
	if got := unplacedOf(c.place(job), "g"); got != 2 {
		t.Fatalf("the real scheduler left %d unplaced, want 2", got)
	}
	g := explain(t, c, job, "g")
	if g.Unplaced != 2 || g.Reasons[0].Reason != "distinct_hosts" || g.Reasons[0].Count != 3 {
		t.Fatalf("explanation: %+v, reasons %s", g, reasonsString(g))
	}
	contains(t, "reason", []string{g.Reasons[0].Example}, "distinct_hosts: the node already holds alloc ")
	contains(t, "reason", []string{g.Reasons[0].Example}, "(spread.g[")
	contains(t, "fixes", g.Fixes, "count 5 with distinct_hosts on 3 eligible nodes: lower the count to 3 or make 2 more nodes eligible")
}

// A static port another job holds on every node: the holder is named.
func TestExplain_BlockedByPorts(t *testing.T) {
	c := newCluster(t)
	c.node("a", nil)
	c.node("b", nil)
	port80 := func(j *structs.Job) *structs.Job {
		j.TaskGroups[0].Networks = []*structs.NetworkResource{{ReservedPorts: []structs.Port{{Label: "http", Value: 80}}}}
		return j
	}
	other := c.job(port80(svc("other", 2, 100, 100)))
	if got := unplacedOf(c.place(other), "g"); got != 0 {
		t.Fatalf("other: %d unplaced", got)
	}
	job := c.job(port80(svc("web", 1, 100, 100)))
	if got := unplacedOf(c.place(job), "g"); got != 1 {
		t.Fatalf("the real scheduler left %d unplaced, want 1", got)
	}
	g := explain(t, c, job, "g")
	if g.Reasons[0].Reason != "port 80" || g.Reasons[0].Count != 2 {
		t.Fatalf("reasons: %s", reasonsString(g))
	}
	contains(t, "reason", []string{g.Reasons[0].Example}, "port 80 (http) is held by alloc ")
	contains(t, "reason", []string{g.Reasons[0].Example}, "(other.g[")
	contains(t, "fixes", g.Fixes, "port 80 is taken on 2 of 2 eligible nodes (by job other x2); a dynamic port, or freeing it, opens 2 nodes")
}

// Verdicts per node on request, with the node class the operator set.
func TestExplain_NodeVerdicts(t *testing.T) {
	c := newCluster(t)
	c.node("a", func(n *structs.Node) { n.NodeClass = "gpu" })
	c.node("b", func(n *structs.Node) { n.NodeResources.MemoryMB = 100 })
	job := c.job(svc("web", 1, 100, 200))
	resp, err := ExplainJob(c.store.Snapshot(), testDeps, job, ExplainOptions{Node: "b"})
	if err != nil {
		t.Fatal(err)
	}
	v := resp.Groups[0].NodeVerdicts
	if len(v) != 1 || v[0].Name != "b" || v[0].Fits || v[0].Failures[0] != "memory: asked 200 MB, free 100 MB" {
		t.Fatalf("verdicts: %+v", v)
	}
	resp, err = ExplainJob(c.store.Snapshot(), testDeps, job, ExplainOptions{Nodes: true})
	if err != nil {
		t.Fatal(err)
	}
	g := resp.Groups[0]
	if len(g.NodeVerdicts) != 2 || !g.NodeVerdicts[0].Fits || g.NodeVerdicts[0].Class != "gpu" || g.Fit != 1 {
		t.Fatalf("verdicts: %+v", g.NodeVerdicts)
	}
	contains(t, "fixes", g.Fixes, "1 of 2 nodes take one more alloc now (e.g. a)")
	if _, err := ExplainJob(c.store.Snapshot(), testDeps, job, ExplainOptions{Group: "nope"}); err == nil || !strings.Contains(err.Error(), `no task group "nope"`) {
		t.Fatalf("unknown group: %v", err)
	}
}

// distinct_property names the alloc holding the value.
func TestExplain_BlockedByDistinctProperty(t *testing.T) {
	c := newCluster(t)
	for _, n := range []string{"a", "b", "c"} {
		c.node(n, func(n *structs.Node) { n.Meta = map[string]string{"rack": "r1"} })
	}
	spec := svc("racked", 2, 100, 100)
	spec.Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctProperty, LTarget: "${meta.rack}"}}
	job := c.job(spec)
	if got := unplacedOf(c.place(job), "g"); got != 1 {
		t.Fatalf("the real scheduler left %d unplaced, want 1", got)
	}
	g := explain(t, c, job, "g")
	if g.Reasons[0].Reason != "distinct_property ${meta.rack}" || g.Reasons[0].Count != 3 {
		t.Fatalf("reasons: %s", reasonsString(g))
	}
	contains(t, "reason", []string{g.Reasons[0].Example}, `distinct_property ${meta.rack}: value "r1" already has 1 of 1 allowed allocs, e.g. alloc `)
	contains(t, "reason", []string{g.Reasons[0].Example}, "(racked.g[0]) on node ")
}
