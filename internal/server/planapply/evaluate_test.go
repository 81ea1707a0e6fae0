package planapply

import (
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// evalFixture is one state shared by the table cases: Evaluate is
// pure, so every case reads the same snapshot.
type evalFixture struct {
	job                        *structs.Job
	e1, down1, drain1, inelig1 *structs.Allocation
}

// setupEvalFixture: n1 is ready and holds e1 (3000 MHz, 6000 MB, 90 GB,
// port 8080, cores 0-1); n-down, n-drain and n-inelig each hold one small
// alloc; n-term holds only a completed alloc using the whole node.
func setupEvalFixture(h *harness) *evalFixture {
	f := &evalFixture{job: mockJob("web", 50)}
	h.upsertJob(f.job)
	down := mockNode("n-down")
	down.Status = structs.NodeStatusDown
	drain := mockNode("n-drain")
	drain.DrainStrategy = &structs.DrainStrategy{Deadline: -1}
	inelig := mockNode("n-inelig")
	inelig.SchedulingEligibility = structs.NodeSchedulingIneligible
	for _, n := range []*structs.Node{mockNode("n1"), mockNode("n-term"), mockNode("n-empty"), down, drain, inelig} {
		h.upsertNode(n)
	}
	f.e1 = withCores(withPort(mockAlloc("e1", f.job, "n1", 3000, 6000, 90_000), 8080), 0, 1)
	f.down1 = mockAlloc("down1", f.job, "n-down", 100, 100, 100)
	f.drain1 = mockAlloc("drain1", f.job, "n-drain", 100, 100, 100)
	f.inelig1 = mockAlloc("inelig1", f.job, "n-inelig", 100, 100, 100)
	done := mockAlloc("done1", f.job, "n-term", 4000, 8192, 100_000)
	done.ClientStatus = structs.AllocClientStatusComplete
	h.upsertAllocs(f.e1, f.down1, f.drain1, f.inelig1, done)
	return f
}

// evaluatePlan is Evaluate's result alone.
func evaluatePlan(snap StateReader, plan *structs.Plan) (*structs.PlanResult, error) {
	out, err := Evaluate(snap, plan)
	if err != nil {
		return nil, err
	}
	return out.Result, nil
}

func TestEvaluatePlan(t *testing.T) {
	h := newHarness(t)
	f := setupEvalFixture(h)
	place := func(id, node string, cpu, mem, disk int64) *structs.Allocation {
		return mockAlloc(id, f.job, node, cpu, mem, disk)
	}
	update := func(a *structs.Allocation, cpu int64) *structs.Allocation {
		c := a.Copy()
		c.AllocatedResources.Tasks["web"].CpuShares = cpu
		return c
	}
	// withDynPort's network is on the node's address (the mock nodes have
	// none, so its IP is empty): ports collide per address.
	withDynPort := func(a *structs.Allocation, port int) *structs.Allocation {
		a.AllocatedResources.Shared.Networks = []*structs.NetworkResource{{
			DynamicPorts: []structs.Port{{Label: "rpc", Value: port}},
		}}
		return a
	}

	withPortAt := func(a *structs.Allocation, ip string, port int) *structs.Allocation {
		a.AllocatedResources.Shared.Ports = append(a.AllocatedResources.Shared.Ports,
			structs.AllocatedPortMapping{Label: "http", Value: port, HostIP: ip})
		return a
	}

	withDevice := func(a *structs.Allocation, id string) *structs.Allocation {
		a.AllocatedResources.Tasks["web"].Devices = []*structs.AllocatedDeviceResource{{Vendor: "nvidia", Type: "gpu", Name: "t4", DeviceIDs: []string{id}}}
		return a
	}

	cases := []struct {
		name      string
		place     []*structs.Allocation
		stop      []*structs.Allocation
		preempt   []*structs.Allocation
		reject    string // node expected rejected, "" for full acceptance
		reason    string
		dimension string
	}{
		{name: "fits", place: []*structs.Allocation{withPort(place("p1", "n1", 500, 1000, 1000), 9090)}},
		{name: "cpu over-committed", place: []*structs.Allocation{place("p1", "n1", 1500, 100, 100)},
			reject: "n1", reason: ReasonExhausted, dimension: DimensionCPU},
		{name: "memory over-committed", place: []*structs.Allocation{place("p1", "n1", 100, 3000, 100)},
			reject: "n1", reason: ReasonExhausted, dimension: DimensionMemory},
		{name: "disk over-committed", place: []*structs.Allocation{place("p1", "n1", 100, 100, 20_000)},
			reject: "n1", reason: ReasonExhausted, dimension: DimensionDisk},
		{name: "cores over-committed", place: []*structs.Allocation{withCores(place("p1", "n1", 100, 100, 100), 2, 3, 4)},
			reject: "n1", reason: ReasonExhausted, dimension: DimensionCores},
		{name: "core pinned twice", place: []*structs.Allocation{withCores(place("p1", "n1", 100, 100, 100), 1)},
			reject: "n1", reason: ReasonExhausted, dimension: DimensionCores},
		{name: "port taken by existing alloc", place: []*structs.Allocation{withPort(place("p1", "n1", 100, 100, 100), 8080)},
			reject: "n1", reason: ReasonExhausted, dimension: DimensionPorts},
		{name: "network dynamic port taken", place: []*structs.Allocation{withDynPort(place("p1", "n1", 100, 100, 100), 8080)},
			reject: "n1", reason: ReasonExhausted, dimension: DimensionPorts},
		{name: "port claimed twice within the plan", place: []*structs.Allocation{
			withPort(place("p1", "n-empty", 100, 100, 100), 9000), withPort(place("p2", "n-empty", 100, 100, 100), 9000)},
			reject: "n-empty", reason: ReasonExhausted, dimension: DimensionPorts},
		{name: "port reserved by the node", place: []*structs.Allocation{withPort(place("p1", "n-empty", 100, 100, 100), 22)},
			reject: "n-empty", reason: ReasonExhausted, dimension: DimensionPorts},
		{name: "same port on another address (host network) is no collision", place: []*structs.Allocation{withPortAt(place("p1", "n1", 100, 100, 100), "10.0.1.5", 8080)}},
		{name: "same port twice on one host network address", place: []*structs.Allocation{
			withPortAt(place("p1", "n-empty", 100, 100, 100), "10.0.1.5", 9000), withPortAt(place("p2", "n-empty", 100, 100, 100), "10.0.1.5", 9000)},
			reject: "n-empty", reason: ReasonExhausted, dimension: DimensionPorts},
		{name: "node reserved ports hold on host network addresses", place: []*structs.Allocation{withPortAt(place("p1", "n-empty", 100, 100, 100), "10.0.1.5", 22)},
			reject: "n-empty", reason: ReasonExhausted, dimension: DimensionPorts},
		{name: "one device instance granted twice", place: []*structs.Allocation{
			withDevice(place("p1", "n-empty", 100, 100, 100), "g0"), withDevice(place("p2", "n-empty", 100, 100, 100), "g0")},
			reject: "n-empty", reason: ReasonExhausted, dimension: DimensionDevices},
		{name: "two device instances", place: []*structs.Allocation{
			withDevice(place("p1", "n-empty", 100, 100, 100), "g0"), withDevice(place("p2", "n-empty", 100, 100, 100), "g1")}},
		{name: "same port mirrored in one alloc is no collision", place: []*structs.Allocation{
			withDynPort(withPort(place("p1", "n-empty", 100, 100, 100), 9000), 9000)}},
		{name: "terminal allocs use nothing", place: []*structs.Allocation{place("p1", "n-term", 4000, 8192, 100_000)}},
		{name: "stop makes room", place: []*structs.Allocation{withPort(place("p1", "n1", 3500, 7000, 95_000), 8080)},
			stop: []*structs.Allocation{stopped(f.e1)}},
		{name: "preemption makes room", place: []*structs.Allocation{withPort(place("p1", "n1", 3500, 7000, 95_000), 8080)},
			preempt: []*structs.Allocation{preempted(f.e1, "p1")}},
		{name: "in-place update replaces the old version", place: []*structs.Allocation{update(f.e1, 3900)}},
		{name: "in-place update over-commits", place: []*structs.Allocation{update(f.e1, 4100)},
			reject: "n1", reason: ReasonExhausted, dimension: DimensionCPU},
		{name: "node missing", place: []*structs.Allocation{place("p1", "n-gone", 100, 100, 100)},
			reject: "n-gone", reason: ReasonNodeMissing},
		{name: "node down", place: []*structs.Allocation{place("p1", "n-down", 100, 100, 100)},
			reject: "n-down", reason: ReasonNodeNotReady},
		{name: "node draining", place: []*structs.Allocation{place("p1", "n-drain", 100, 100, 100)},
			reject: "n-drain", reason: ReasonNodeDraining},
		{name: "node ineligible", place: []*structs.Allocation{place("p1", "n-inelig", 100, 100, 100)},
			reject: "n-inelig", reason: ReasonNodeIneligible},
		{name: "stops on a down node", stop: []*structs.Allocation{stopped(f.down1)}},
		{name: "stops on a deleted node", stop: []*structs.Allocation{stopped(place("gone1", "n-gone", 1, 1, 1))}},
		{name: "preemption on a draining node", preempt: []*structs.Allocation{preempted(f.drain1, "x")}},
		{name: "in-place update on ineligible node", place: []*structs.Allocation{update(f.inelig1, 200)}},
		{name: "in-place update on draining node", place: []*structs.Allocation{update(f.drain1, 200)}},
		{name: "in-place update on down node", place: []*structs.Allocation{update(f.down1, 200)}},
		{name: "in-place update plus new placement on ineligible node", place: []*structs.Allocation{
			update(f.inelig1, 200), place("p1", "n-inelig", 100, 100, 100)},
			reject: "n-inelig", reason: ReasonNodeIneligible},
		{name: "update of an alloc from another node is a placement", place: []*structs.Allocation{
			func() *structs.Allocation { c := update(f.e1, 100); c.NodeID = "n-inelig"; return c }()},
			reject: "n-inelig", reason: ReasonNodeIneligible},
	}
	snap := h.store.Snapshot()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan := h.plan("eval-1", f.job)
			addTo(&plan.NodeAllocation, tc.place...)
			addTo(&plan.NodeUpdate, tc.stop...)
			addTo(&plan.NodePreemptions, tc.preempt...)
			out, err := Evaluate(snap, plan)
			if err != nil {
				t.Fatal(err)
			}
			checkOutcome(t, snap.LatestIndex(), plan, out, tc.reject, tc.reason, tc.dimension)
		})
	}
}

func checkOutcome(t *testing.T, latest uint64, plan *structs.Plan, out *Outcome, reject, reason, dim string) {
	t.Helper()
	res := out.Result
	if reject == "" {
		if len(res.RejectedNodes) != 0 || res.RefreshIndex != 0 {
			t.Fatalf("rejected %v (%+v), refresh %d; want all accepted", res.RejectedNodes, out.Rejections, res.RefreshIndex)
		}
		if full, want, got := res.FullCommit(plan); !full {
			t.Fatalf("committed %d of %d placements", got, want)
		}
		return
	}
	if !slices.Equal(res.RejectedNodes, []string{reject}) {
		t.Fatalf("rejected nodes %v, want [%s]", res.RejectedNodes, reject)
	}
	if r := out.Rejections[0]; r.Reason != reason || r.Dimension != dim {
		t.Fatalf("rejection %+v, want reason %q dimension %q", r, reason, dim)
	}
	if res.RefreshIndex != latest || latest == 0 {
		t.Fatalf("refresh index %d, want latest %d", res.RefreshIndex, latest)
	}
	if len(res.NodeAllocation[reject])+len(res.NodeUpdate[reject])+len(res.NodePreemptions[reject]) != 0 {
		t.Fatalf("rejected node %s still in the result", reject)
	}
}

// A rejected node loses its stops too: the node's part is all or nothing.
func TestEvaluatePlan_RejectedNodeKeepsNoStops(t *testing.T) {
	h := newHarness(t)
	f := setupEvalFixture(h)
	plan := h.plan("eval-1", f.job)
	addTo(&plan.NodeUpdate, stopped(f.down1))
	addTo(&plan.NodeAllocation, mockAlloc("p1", f.job, "n-down", 100, 100, 100))
	res, err := evaluatePlan(h.store.Snapshot(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NodeUpdate) != 0 || !slices.Equal(res.RejectedNodes, []string{"n-down"}) {
		t.Fatalf("result %+v", res)
	}
}

func TestEvaluatePlan_AllAtOnce(t *testing.T) {
	h := newHarness(t)
	f := setupEvalFixture(h)
	for _, allAtOnce := range []bool{false, true} {
		plan := h.plan("eval-1", f.job)
		plan.AllAtOnce = allAtOnce
		plan.Deployment = &structs.Deployment{ID: "d1", Namespace: f.job.Namespace, JobID: f.job.ID}
		addTo(&plan.NodeAllocation,
			mockAlloc("a-fits", f.job, "n-empty", 100, 100, 100),
			mockAlloc("b-over", f.job, "n1", 2000, 100, 100),
			mockAlloc("c-fits", f.job, "n-term", 100, 100, 100))
		addTo(&plan.NodeUpdate, stopped(f.down1))
		res, err := evaluatePlan(h.store.Snapshot(), plan)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.RejectedNodes, []string{"n1"}) || res.RefreshIndex == 0 {
			t.Fatalf("all-at-once %v: rejected %v refresh %d", allAtOnce, res.RejectedNodes, res.RefreshIndex)
		}
		accepted := len(res.NodeAllocation) + len(res.NodeUpdate)
		if allAtOnce && (accepted != 0 || res.Deployment != nil) {
			t.Fatalf("all-at-once plan committed %d nodes, deployment %v", accepted, res.Deployment)
		}
		if !allAtOnce && (accepted != 3 || res.Deployment == nil) {
			t.Fatalf("partial plan committed %d nodes (want 3), deployment %v", accepted, res.Deployment)
		}
	}
}

func TestEvaluatePlan_Deployment(t *testing.T) {
	h := newHarness(t)
	f := setupEvalFixture(h)
	d := &structs.Deployment{ID: "d1"}
	upd := []*structs.DeploymentStatusUpdate{{DeploymentID: "d0"}}

	onlyDeployment := h.plan("eval-1", f.job)
	onlyDeployment.Deployment, onlyDeployment.DeploymentUpdates = d, upd
	allRejected := h.plan("eval-2", f.job)
	allRejected.Deployment, allRejected.DeploymentUpdates = d, upd
	addTo(&allRejected.NodeAllocation, mockAlloc("p1", f.job, "n-down", 1, 1, 1))

	for name, tc := range map[string]struct {
		plan *structs.Plan
		keep bool
	}{"no node changes": {onlyDeployment, true}, "every node rejected": {allRejected, false}} {
		res, err := evaluatePlan(h.store.Snapshot(), tc.plan)
		if err != nil {
			t.Fatal(err)
		}
		if kept := res.Deployment != nil && len(res.DeploymentUpdates) == 1; kept != tc.keep {
			t.Errorf("%s: deployment kept %v, want %v", name, kept, tc.keep)
		}
	}
}

func TestParsePortRanges(t *testing.T) {
	got := parsePortRanges(" 22, 80,8000-8100,bad,9-1,")
	want := []portRange{{22, 22}, {80, 80}, {8000, 8100}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
	if !inRanges(got, 8050) || inRanges(got, 81) {
		t.Fatal("inRanges")
	}
}
