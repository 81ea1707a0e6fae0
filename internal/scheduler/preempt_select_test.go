package scheduler

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestPreemptionEnabled(t *testing.T) {
	all := &structs.SchedulerConfiguration{PreemptionConfig: structs.PreemptionConfig{
		SystemSchedulerEnabled: true, SysBatchSchedulerEnabled: true, BatchSchedulerEnabled: true, ServiceSchedulerEnabled: true,
	}}
	none := &structs.SchedulerConfiguration{}
	cases := []struct {
		cfg  *structs.SchedulerConfiguration
		typ  string
		want bool
	}{
		{nil, structs.JobTypeSystem, true},
		{nil, structs.JobTypeService, false},
		{nil, structs.JobTypeBatch, false},
		{nil, structs.JobTypeSysBatch, false},
		{all, structs.JobTypeSysBatch, true},
		{all, structs.JobTypeBatch, true},
		{all, structs.JobTypeService, true},
		{all, "unknown", false},
		{none, structs.JobTypeSystem, false},
	}
	for _, tc := range cases {
		if got := preemptionEnabled(tc.cfg, tc.typ); got != tc.want {
			t.Errorf("cfg %v, %s: %v, want %v", tc.cfg != nil, tc.typ, got, tc.want)
		}
	}
}

// TestPreemptible checks which allocs a job of priority 50 may evict and
// where their priority comes from.
func TestPreemptible(t *testing.T) {
	h := newHarness(t)
	stored := mockJob("stored", 1)
	stored.Priority = 30
	h.upsertJob(stored)
	job := mockJob("high", 1)
	job.Type, job.Priority = structs.JobTypeSystem, 50
	ctx := newEvalContext(h.store.Snapshot(), &structs.Evaluation{ID: "e"}, job, &structs.Plan{}, nil, t0)
	p := newPreemptor(ctx, job)
	withJob := func(ns, id string, prio int) *structs.Allocation {
		return &structs.Allocation{ID: "a", Namespace: ns, JobID: id, Job: &structs.Job{ID: id, Namespace: ns, Priority: prio}}
	}
	cases := []struct {
		name     string
		alloc    *structs.Allocation
		wantPrio int
		want     bool
	}{
		{"lower priority", withJob("default", "low", 20), 20, true},
		{"priority 0", withJob("default", "low", 0), 0, true},
		{"the delta lower", withJob("default", "low", 40), 40, true},
		{"less than the delta lower", withJob("default", "low", 41), 41, false},
		{"its own alloc", withJob("default", "high", 0), 0, false},
		{"same job ID in another namespace", withJob("other", "high", 20), 20, true},
		{"priority from the stored job", &structs.Allocation{Namespace: "default", JobID: "stored"}, 30, true},
		{"unknown job", &structs.Allocation{Namespace: "default", JobID: "gone"}, -1, false},
		{"stored job again, from the cache", &structs.Allocation{Namespace: "default", JobID: "stored"}, 30, true},
	}
	for _, tc := range cases {
		prio, ok := p.preemptible(tc.alloc)
		if prio != tc.wantPrio || ok != tc.want {
			t.Errorf("%s: %d %v, want %d %v", tc.name, prio, ok, tc.wantPrio, tc.want)
		}
	}
	if len(p.jobPrio) != 2 || p.jobPrio[structs.NamespacedID{Namespace: "default", ID: "gone"}] != -1 {
		t.Fatalf("looked-up priorities %v", p.jobPrio)
	}
	if newPreemptor(ctx, nil) != nil {
		t.Fatal("preemptor without a job")
	}
	svc := job.Copy()
	svc.Type = structs.JobTypeService
	if newPreemptor(ctx, svc) != nil {
		t.Fatal("service job preempts under the default configuration")
	}
}

// preemptStack is the group stack of a service job of priority 80 asking
// cpu MHz, with preemption on, over nodes in exactly the given order.
func (h *harness) preemptStack(cpu int, ns ...*structs.Node) *groupStack {
	job := placing(structs.JobTypeService, 80, 1, cpu, false)
	g := h.groupOn(job, ns...)
	g.s.ctx.cfg.PreemptionConfig.ServiceSchedulerEnabled = true
	g.s.preempt = newPreemptor(g.s.ctx, job)
	g.s.nodes = ns
	return g
}

// TestSelectByPreemption_SampleLimit checks that preemption weighs limit
// nodes from the cursor on, as the normal ranking samples them: a better
// node beyond the sample is not seen.
func TestSelectByPreemption_SampleLimit(t *testing.T) {
	cases := []struct {
		name      string
		limit     int
		cursor    int
		wantNode  int
		wantEvict int
	}{
		{"two nodes from the start", 2, 0, 0, 2},
		{"three nodes from the start", 3, 0, 2, 1},
		{"two nodes from the second", 2, 1, 2, 1},
		{"wraps around", 2, 2, 2, 1},
		{"wraps past the end", 1, 3, 3, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			var ns []*structs.Node
			// Nodes 0, 1 and 3 need two evictions, node 2 one.
			for i, fs := range [][]filler{
				{{name: "a1", prio: 10, cpu: 2000}, {name: "a2", prio: 10, cpu: 2000}},
				{{name: "b1", prio: 10, cpu: 2000}, {name: "b2", prio: 10, cpu: 2000}},
				{{name: "c1", prio: 10, cpu: 4000}},
				{{name: "d1", prio: 10, cpu: 2000}, {name: "d2", prio: 10, cpu: 2000}},
			} {
				n := h.upsertNode(mockNode())
				n.Name = string(rune('0' + i))
				ns = append(ns, n)
				for _, f := range fs {
					h.addFiller(n, f)
				}
			}
			g := h.preemptStack(3000, ns...)
			g.limit, g.cursor = tc.limit, tc.cursor
			m := g.s.newMetric()
			opt, victims := g.selectByPreemption(nil, m)
			if opt == nil || opt.node != ns[tc.wantNode] || len(victims) != tc.wantEvict {
				t.Fatalf("picked %v with %d victims; want node %d with %d", opt, len(victims), tc.wantNode, tc.wantEvict)
			}
			if meta := m.ScoreMetaData; len(meta) != 1 || meta[0].NodeID != opt.node.ID || meta[0].Scores[ScorePreemption] != -float64(tc.wantEvict) || meta[0].NormScore != opt.final {
				t.Fatalf("score metadata %+v", meta)
			}
			for _, n := range ns {
				u, _ := g.s.ctx.nodeUsage(n)
				if u.used.CpuShares != 4000 {
					t.Fatalf("usage of %s not restored: %+v", n.Name, u.used)
				}
			}
		})
	}
}

// TestSelectByPreemption_NoneAllowed checks that nodes whose allocs may
// not be evicted, or that are infeasible, give no option.
func TestSelectByPreemption_NoneAllowed(t *testing.T) {
	h := newHarness(t)
	high := h.upsertNode(mockNode())
	h.addFiller(high, filler{name: "high", prio: 75, cpu: 4000})
	down := mockNode()
	down.Attributes["kernel.name"] = "windows"
	h.upsertNode(down)
	h.addFiller(down, filler{name: "low", prio: 10, cpu: 4000})
	g := h.preemptStack(1000, high, down)
	g.s.job.Constraints = []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}}
	g.feas = newFeasibility(g.s.ctx, g.s.job, g.tg)
	g.limit = 5
	if opt, victims := g.selectByPreemption(nil, g.s.newMetric()); opt != nil || victims != nil {
		t.Fatalf("picked %v evicting %v", opt, victims)
	}
}

// TestPreemption_TaskStaticPort checks that a static port a task (not the
// group) asks for is freed by evicting its holder.
func TestPreemption_TaskStaticPort(t *testing.T) {
	h := newHarness(t)
	n := h.upsertNode(mockNode())
	h.addFiller(n, filler{name: "port", prio: 20, cpu: 100, port: 8080})
	h.addFiller(n, filler{name: "other", prio: 20, cpu: 100})
	job := placing(structs.JobTypeSystem, 50, 1, 500, false)
	job.TaskGroups[0].Tasks[0].Resources.Networks = []*structs.NetworkResource{{ReservedPorts: []structs.Port{{Label: "http", Value: 8080}}}}
	job, _ = h.register(job)
	checkPreemption(t, h, job, 1, []string{"port"})
}

// TestPreemption_CoresShortfall checks that the CPU of asked cores counts
// in what must be freed: 2 cores of 1000 MHz on a node with 2500 MHz used
// need 500 MHz back, which the smaller alloc frees.
func TestPreemption_CoresShortfall(t *testing.T) {
	h := newHarness(t)
	n := h.upsertNode(mockNode())
	h.addFiller(n, filler{name: "small", prio: 20, cpu: 500})
	h.addFiller(n, filler{name: "big", prio: 20, cpu: 2000})
	job := placing(structs.JobTypeSystem, 50, 1, 0, false)
	job.TaskGroups[0].Tasks[0].Resources.Cores = 2
	job, _ = h.register(job)
	checkPreemption(t, h, job, 1, []string{"small"})
}

// TestPreemption_DistinctPropertySeesEarlierPlacement checks that a
// placement made by preemption counts toward distinct_property for the
// next placement of the same plan: both nodes are on one rack, so only
// one alloc may be placed.
func TestPreemption_DistinctPropertySeesEarlierPlacement(t *testing.T) {
	h := newHarness(t)
	cfg := structs.DefaultSchedulerConfiguration()
	cfg.PreemptionConfig.ServiceSchedulerEnabled = true
	h.must(h.store.SchedulerSetConfig(h.next(), cfg))
	for _, name := range []string{"a", "b"} {
		n := h.upsertNode(mockNode())
		h.addFiller(n, filler{name: name, prio: 20, cpu: 4000})
	}
	job := placing(structs.JobTypeService, 80, 2, 1000, false)
	job.TaskGroups[0].Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctProperty, LTarget: "${meta.rack}"}}
	job, _ = h.register(job)
	if live := h.liveAllocs(job); len(live) != 1 {
		t.Fatalf("placed %d on one rack", len(live))
	}
	if m := h.lastEval().FailedTGAllocs["web"]; m == nil || m.ConstraintFiltered[FilterConstraintDistinctProperty] == 0 {
		t.Fatalf("failure metric %+v", m)
	}
}

// TestPreemption_NoNodesBlocksTheEval checks that a job that may preempt,
// registered where there is no node at all, is left blocked like any
// other job: the preemption pass has no node to weigh and must not try
// one.
func TestPreemption_NoNodesBlocksTheEval(t *testing.T) {
	h := newHarness(t)
	cfg := structs.DefaultSchedulerConfiguration()
	cfg.PreemptionConfig.ServiceSchedulerEnabled = true
	h.must(h.store.SchedulerSetConfig(h.next(), cfg))
	job, _ := h.register(placing(structs.JobTypeService, 80, 1, 1000, false))
	if live := h.liveAllocs(job); len(live) != 0 {
		t.Fatalf("placed %d allocs without nodes", len(live))
	}
	if len(h.created) != 1 || h.created[0].Status != structs.EvalStatusBlocked {
		t.Fatalf("created evals %+v, want one blocked eval", h.created)
	}
}
