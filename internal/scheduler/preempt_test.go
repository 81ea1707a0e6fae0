package scheduler

import (
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// filler is a running alloc of another job, already on the test node.
type filler struct {
	name string
	prio int
	cpu  int64
	mem  int64
	port int // static port held, 0 for none
}

// addFiller stores a one-alloc job of the filler's priority and its
// running alloc on the node; the alloc's ID is "filler-" + name.
func (h *harness) addFiller(n *structs.Node, f filler) *structs.Allocation {
	j := mockJob("low-"+f.name, 1)
	j.Priority = f.prio
	j = h.upsertJob(j)
	a := &structs.Allocation{
		ID: "filler-" + f.name, Namespace: j.Namespace, JobID: j.ID, Job: j, TaskGroup: "web",
		Name: structs.AllocName(j.ID, "web", 0), NodeID: n.ID, NodeName: n.Name,
		AllocatedResources: &structs.AllocatedResources{
			Tasks: map[string]*structs.AllocatedTaskResources{"web": {CpuShares: f.cpu, MemoryMB: f.mem}},
		},
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
	}
	if f.port > 0 {
		a.AllocatedResources.Shared.Ports = []structs.AllocatedPortMapping{{Label: "http", Value: f.port}}
	}
	h.upsertAllocs(a)
	return a
}

// placing builds the job that needs room: count allocs of cpu MHz each,
// optionally asking for static port 8080.
func placing(typ string, prio, count int, cpu int, port bool) *structs.Job {
	j := mockJob("high", count)
	j.Type, j.Priority = typ, prio
	j.TaskGroups[0].ReschedulePolicy = nil
	j.TaskGroups[0].Tasks[0].Resources.CPU = cpu
	if port {
		j.TaskGroups[0].Networks = []*structs.NetworkResource{{ReservedPorts: []structs.Port{{Label: "http", Value: 8080}}}}
	}
	j.Canonicalize()
	return j
}

func TestPreemption(t *testing.T) {
	service := &structs.PreemptionConfig{ServiceSchedulerEnabled: true, SystemSchedulerEnabled: true}
	cases := []struct {
		name       string
		cfg        *structs.PreemptionConfig // nil: the default configuration
		fillers    []filler                  // on one node of 4000 MHz, 8192 MB
		job        *structs.Job
		wantPlaced int
		wantEvict  []string // filler names
	}{
		{"system preempts a lower priority service alloc on a full node", nil,
			[]filler{{name: "a", prio: 20, cpu: 3800, mem: 256}},
			placing(structs.JobTypeSystem, 50, 1, 500, false), 1, []string{"a"}},
		{"priority exactly the delta lower is preempted", nil,
			[]filler{{name: "a", prio: 40, cpu: 3800, mem: 256}},
			placing(structs.JobTypeSystem, 50, 1, 500, false), 1, []string{"a"}},
		{"priority less than the delta lower is not preempted", nil,
			[]filler{{name: "a", prio: 41, cpu: 3800, mem: 256}},
			placing(structs.JobTypeSystem, 50, 1, 500, false), 0, nil},
		{"service does not preempt by default", nil,
			[]filler{{name: "a", prio: 20, cpu: 3800, mem: 256}},
			placing(structs.JobTypeService, 80, 1, 500, false), 0, nil},
		{"service preempts when enabled", service,
			[]filler{{name: "a", prio: 20, cpu: 3800, mem: 256}},
			placing(structs.JobTypeService, 80, 1, 500, false), 1, []string{"a"}},
		{"sysbatch does not preempt by default", nil,
			[]filler{{name: "a", prio: 20, cpu: 3800, mem: 256}},
			placing(structs.JobTypeSysBatch, 80, 1, 500, false), 0, nil},
		{"batch preempts when enabled", &structs.PreemptionConfig{BatchSchedulerEnabled: true},
			[]filler{{name: "a", prio: 20, cpu: 3800, mem: 256}},
			placing(structs.JobTypeBatch, 80, 1, 500, false), 1, []string{"a"}},
		{"system disabled by config", &structs.PreemptionConfig{},
			[]filler{{name: "a", prio: 20, cpu: 3800, mem: 256}},
			placing(structs.JobTypeSystem, 50, 1, 500, false), 0, nil},
		{"fewest victims: one big rather than two small", nil,
			[]filler{{name: "big", prio: 20, cpu: 2000}, {name: "s1", prio: 20, cpu: 1000}, {name: "s2", prio: 20, cpu: 1000}},
			placing(structs.JobTypeSystem, 50, 1, 1500, false), 1, []string{"big"}},
		{"fewest victims wins over lower priority", nil,
			[]filler{{name: "big", prio: 30, cpu: 2000}, {name: "s1", prio: 10, cpu: 1000}, {name: "s2", prio: 10, cpu: 1000}},
			placing(structs.JobTypeSystem, 50, 1, 1500, false), 1, []string{"big"}},
		{"equal counts: lowest priority", nil,
			[]filler{{name: "p30", prio: 30, cpu: 2000}, {name: "p20", prio: 20, cpu: 2000}},
			placing(structs.JobTypeSystem, 50, 1, 1500, false), 1, []string{"p20"}},
		{"equal counts and priorities: closest to the need", nil,
			[]filler{{name: "large", prio: 20, cpu: 2500}, {name: "close", prio: 20, cpu: 1500}},
			placing(structs.JobTypeSystem, 50, 1, 1400, false), 1, []string{"close"}},
		{"never more than needed", nil,
			[]filler{{name: "a", prio: 20, cpu: 1000}, {name: "b", prio: 20, cpu: 1000}, {name: "c", prio: 20, cpu: 1000}, {name: "d", prio: 20, cpu: 1000}},
			placing(structs.JobTypeSystem, 50, 1, 1800, false), 1, []string{"a", "b"}},
		{"higher priority allocs are never victims", nil,
			[]filler{{name: "low", prio: 20, cpu: 1000}, {name: "high", prio: 90, cpu: 3000}},
			placing(structs.JobTypeSystem, 50, 1, 1500, false), 0, nil},
		{"static port held by a low priority alloc is freed", nil,
			[]filler{{name: "port", prio: 20, cpu: 100, port: 8080}, {name: "other", prio: 20, cpu: 100}},
			placing(structs.JobTypeSystem, 50, 1, 500, true), 1, []string{"port"}},
		{"static port held by a high priority alloc blocks", nil,
			[]filler{{name: "port", prio: 90, cpu: 100, port: 8080}},
			placing(structs.JobTypeSystem, 50, 1, 500, true), 0, nil},
		{"port and resources together", nil,
			[]filler{{name: "port", prio: 20, cpu: 500, port: 8080}, {name: "big", prio: 20, cpu: 3000}, {name: "mid", prio: 20, cpu: 500}},
			placing(structs.JobTypeSystem, 50, 1, 900, true), 1, []string{"mid", "port"}},
		{"a victim is freed for one placement only", service,
			[]filler{{name: "low", prio: 20, cpu: 2000}, {name: "high", prio: 90, cpu: 2000}},
			placing(structs.JobTypeService, 80, 2, 2000, false), 1, []string{"low"}},
		{"room freed by preemption is consumed by the placement", service,
			[]filler{{name: "a", prio: 20, cpu: 2000}, {name: "b", prio: 20, cpu: 2000}},
			placing(structs.JobTypeService, 80, 2, 1500, false), 2, []string{"a", "b"}},
		{"leftover room serves the next placement without eviction", service,
			[]filler{{name: "a", prio: 20, cpu: 3000}, {name: "high", prio: 90, cpu: 1000}},
			placing(structs.JobTypeService, 80, 2, 1500, false), 2, []string{"a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			if tc.cfg != nil {
				cfg := structs.DefaultSchedulerConfiguration()
				cfg.PreemptionConfig = *tc.cfg
				h.must(h.store.SchedulerSetConfig(h.next(), cfg))
			}
			n := h.upsertNode(mockNode())
			for _, f := range tc.fillers {
				h.addFiller(n, f)
			}
			job, _ := h.register(tc.job)
			checkPreemption(t, h, job, tc.wantPlaced, tc.wantEvict)
		})
	}
}

// checkPreemption checks the plan, the placements' PreemptedAllocations,
// the annotations and the stored victims against the expected evictions.
func checkPreemption(t *testing.T, h *harness, job *structs.Job, wantPlaced int, wantEvict []string) {
	t.Helper()
	var want []string
	for _, name := range wantEvict {
		want = append(want, "filler-"+name)
	}
	var placed, evicted, claimed []string
	var annotated uint64
	for _, p := range h.plans {
		for _, as := range p.NodeAllocation {
			for _, a := range as {
				placed = append(placed, a.ID)
				claimed = append(claimed, a.PreemptedAllocations...)
			}
		}
		for _, as := range p.NodePreemptions {
			for _, a := range as {
				evicted = append(evicted, a.ID)
				if a.DesiredStatus != structs.AllocDesiredStatusEvict || !slices.Contains(placed, a.PreemptedByAllocation) {
					t.Fatalf("victim %s: status %s by %q", a.ID, a.DesiredStatus, a.PreemptedByAllocation)
				}
			}
		}
		if p.Annotations != nil && p.Annotations.DesiredTGUpdates["web"] != nil {
			annotated += p.Annotations.DesiredTGUpdates["web"].Preemptions
		}
	}
	slices.Sort(evicted)
	slices.Sort(claimed)
	if len(placed) != wantPlaced || !slices.Equal(evicted, want) || !slices.Equal(claimed, want) || annotated != uint64(len(want)) {
		t.Fatalf("placed %d (want %d), evicted %v, claimed %v, annotated %d; want %v", len(placed), wantPlaced, evicted, claimed, annotated, want)
	}
	for _, id := range want {
		a, err := h.store.AllocByID(nil, id)
		h.must(err)
		if a.DesiredStatus != structs.AllocDesiredStatusEvict || a.PreemptedByAllocation == "" {
			t.Fatalf("stored victim %s: %s by %q", id, a.DesiredStatus, a.PreemptedByAllocation)
		}
	}
	if wantPlaced < job.TaskGroups[0].Count {
		if e := h.lastEval(); e.FailedTGAllocs["web"] == nil {
			t.Fatalf("unplaced allocs but no failure recorded: %+v", e)
		}
	}
}

// TestPreemption_AcrossNodes checks how a service job ranks the nodes
// where evictions would make room: fewest, then lowest priority victims.
func TestPreemption_AcrossNodes(t *testing.T) {
	cases := []struct {
		name      string
		perNode   [][]filler // one node each, 4000 MHz
		cpu       int
		wantEvict []string
	}{
		{"node needing fewer evictions wins",
			[][]filler{
				{{name: "s1", prio: 10, cpu: 1000}, {name: "s2", prio: 10, cpu: 1000}, {name: "s3", prio: 10, cpu: 1000}, {name: "s4", prio: 10, cpu: 1000}},
				{{name: "big", prio: 30, cpu: 2000}, {name: "keep", prio: 90, cpu: 2000}},
			}, 1800, []string{"big"}},
		{"node with lower priority victims wins",
			[][]filler{{{name: "p30", prio: 30, cpu: 4000}}, {{name: "p20", prio: 20, cpu: 4000}}},
			1000, []string{"p20"}},
		{"nodes without allowed victims are skipped",
			[][]filler{{{name: "high", prio: 75, cpu: 4000}}, {{name: "low", prio: 40, cpu: 4000}}},
			1000, []string{"low"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			cfg := structs.DefaultSchedulerConfiguration()
			cfg.PreemptionConfig.ServiceSchedulerEnabled = true
			h.must(h.store.SchedulerSetConfig(h.next(), cfg))
			for _, fs := range tc.perNode {
				n := h.upsertNode(mockNode())
				for _, f := range fs {
					h.addFiller(n, f)
				}
			}
			job, _ := h.register(placing(structs.JobTypeService, 80, 1, tc.cpu, false))
			checkPreemption(t, h, job, 1, tc.wantEvict)
			a := h.liveAllocs(job)[0]
			if meta := a.Metrics.ScoreMetaData; len(meta) == 0 || meta[len(meta)-1].Scores[ScorePreemption] != -float64(len(tc.wantEvict)) {
				t.Fatalf("metrics do not record the preemption: %+v", meta)
			}
		})
	}
}

// TestChooseVictims_Greedy covers a need beyond MaxExactVictims allocs:
// lowest priorities first, and no more than needed.
func TestChooseVictims_Greedy(t *testing.T) {
	var cands []*victim
	for i := range 10 {
		prio := 10
		if i%2 == 1 {
			prio = 20
		}
		a := &structs.Allocation{ID: string(rune('a' + i))}
		cands = append(cands, &victim{alloc: a, priority: prio, frees: structs.ComparableResources{CpuShares: 500}})
	}
	slices.SortFunc(cands, func(a, b *victim) int { return a.priority - b.priority })
	need := structs.ComparableResources{CpuShares: 2600}
	got, ok := chooseVictims(cands, need)
	if !ok || len(got) != 6 {
		t.Fatalf("got %d victims (ok %v), want 6", len(got), ok)
	}
	low := 0
	for _, v := range got {
		if v.priority == 10 {
			low++
		}
	}
	if low != 5 {
		t.Fatalf("took %d of the 5 lowest priority allocs", low)
	}
	if _, ok := chooseVictims(cands, structs.ComparableResources{CpuShares: 5001}); ok {
		t.Fatal("covered more than all candidates free")
	}
}
