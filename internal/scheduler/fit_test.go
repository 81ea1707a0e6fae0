package scheduler

import (
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// groupOn builds the group stack of the job's first group over the given
// stored nodes, as the generic scheduler does for one planning attempt.
func (h *harness) groupOn(job *structs.Job, ns ...*structs.Node) *groupStack {
	ctx := newEvalContext(h.store.Snapshot(), &structs.Evaluation{ID: "e"}, job, &structs.Plan{}, nil, t0)
	for _, n := range ns {
		ctx.nodes[n.ID] = n
	}
	return newPlacementStack(ctx, job, false, ns, nil).group(job.TaskGroups[0], nil)
}

// coreHolder is a running alloc of another job holding reserved cores and
// CPU; the test sets its node.
func coreHolder(id string, cpu int64, cores ...uint16) *structs.Allocation {
	return &structs.Allocation{
		ID: id, Namespace: structs.DefaultNamespace, JobID: "other-" + id, TaskGroup: "web",
		AllocatedResources: &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{
			"web": {CpuShares: cpu, MemoryMB: 10, ReservedCores: cores},
		}},
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
	}
}

// TestFit_Cores checks the fit of groups asking for reserved cores on a
// node of 4 cores at 1000 MHz each: which cores are granted, and which
// dimension is recorded when the node is short.
func TestFit_Cores(t *testing.T) {
	cases := []struct {
		name       string
		reservable []uint16 // nil: the mock's 0-3; empty: none listed
		held       []*structs.Allocation
		cores      []int // per task
		wantCores  map[string][]uint16
		wantDim    string
	}{
		{name: "every core of the node", cores: []int{4},
			wantCores: map[string][]uint16{"t0": {0, 1, 2, 3}}},
		{name: "the free ones, lowest first", cores: []int{2},
			held:      []*structs.Allocation{coreHolder("a", 1000, 0, 2)},
			wantCores: map[string][]uint16{"t0": {1, 3}}},
		{name: "cores short is reported as cores, not cpu", cores: []int{3},
			held:    []*structs.Allocation{coreHolder("a", 2000, 0, 1)},
			wantDim: "cores"},
		{name: "cpu of the reserved cores counts against other allocs' cpu", cores: []int{2},
			held:    []*structs.Allocation{coreHolder("a", 2500)},
			wantDim: "cpu"},
		{name: "the cpu of the cores exactly fills the node", cores: []int{2},
			held:      []*structs.Allocation{coreHolder("a", 2000)},
			wantCores: map[string][]uint16{"t0": {0, 1}}},
		{name: "only reservable cores are granted", cores: []int{2}, reservable: []uint16{2, 3},
			wantCores: map[string][]uint16{"t0": {2, 3}}},
		{name: "not enough reservable cores", cores: []int{3}, reservable: []uint16{2, 3},
			wantDim: "cores"},
		{name: "no reservable list: every core of the node", cores: []int{3}, reservable: []uint16{},
			wantCores: map[string][]uint16{"t0": {0, 1, 2}}},
		{name: "tasks get distinct cores", cores: []int{1, 0, 2},
			wantCores: map[string][]uint16{"t0": {0}, "t2": {1, 2}}},
		{name: "the second task finds too few", cores: []int{2, 2}, reservable: []uint16{0, 1, 2},
			wantDim: "cores"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			n := mockNode()
			if tc.reservable != nil {
				n.NodeResources.CPU.ReservableCpuCores = tc.reservable
			}
			h.upsertNode(n)
			for _, a := range tc.held {
				a.NodeID = n.ID
				h.upsertAllocs(a)
			}
			job := mockJob("web", 1)
			job.TaskGroups[0].Tasks = nil
			for i, c := range tc.cores {
				job.TaskGroups[0].Tasks = append(job.TaskGroups[0].Tasks, &structs.Task{
					Name: "t" + string(rune('0'+i)), Driver: "exec", Resources: &structs.Resources{Cores: c, CPU: 100, MemoryMB: 10},
				})
			}
			g := h.groupOn(job, n)
			var m structs.AllocMetric
			var opt option
			ok := g.fit(n, &m, nil, &opt)
			if tc.wantDim != "" {
				if ok || m.NodesExhausted != 1 || m.DimensionExhausted[tc.wantDim] != 1 || len(m.DimensionExhausted) != 1 {
					t.Fatalf("fit %v, metric %+v; want exhausted on %s", ok, m, tc.wantDim)
				}
				return
			}
			if !ok || len(opt.cores) != len(tc.wantCores) {
				t.Fatalf("fit %v, cores %v, metric %+v; want %v", ok, opt.cores, m, tc.wantCores)
			}
			for task, want := range tc.wantCores {
				if !slices.Equal(opt.cores[task], want) {
					t.Fatalf("cores %v, want %v", opt.cores, tc.wantCores)
				}
			}
			ar := g.resources(&opt)
			for task, want := range tc.wantCores {
				if got := ar.Tasks[task].CpuShares; got != int64(len(want))*1000 {
					t.Fatalf("task %s granted %d MHz for %d cores", task, got, len(want))
				}
			}
		})
	}
}

func TestMhzPerCore(t *testing.T) {
	withCPU := func(shares int64, cores uint16) *structs.Node {
		return &structs.Node{NodeResources: &structs.NodeResources{CPU: structs.NodeCPUResources{CpuShares: shares, TotalCpuCores: cores}}}
	}
	cases := []struct {
		name string
		node *structs.Node
		want int64
	}{
		{"no resources", &structs.Node{}, 0},
		{"no cores", withCPU(4000, 0), 0},
		{"even share", withCPU(4000, 4), 1000},
		{"uneven share rounds down", withCPU(3000, 4), 750},
		{"one core", withCPU(2400, 1), 2400},
	}
	for _, tc := range cases {
		if got := mhzPerCore(tc.node); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestFit_GrantedResources checks what a placement is granted: memory_max
// only when oversubscription is on and it is above memory, disk, and the
// networks of the offer.
func TestFit_GrantedResources(t *testing.T) {
	cases := []struct {
		name          string
		oversubscribe bool
		memory, max   int
		wantMax       int64
	}{
		{"oversubscription on, max above memory", true, 256, 512, 512},
		{"oversubscription on, max equal to memory", true, 256, 256, 0},
		{"oversubscription on, max below memory", true, 256, 100, 0},
		{"oversubscription off", false, 256, 512, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			n := h.upsertNode(mockNode())
			job := mockJob("web", 1)
			job.TaskGroups[0].Tasks[0].Resources = &structs.Resources{CPU: 300, MemoryMB: tc.memory, MemoryMaxMB: tc.max}
			job.TaskGroups[0].EphemeralDisk = &structs.EphemeralDisk{SizeMB: 150}
			g := h.groupOn(job, n)
			g.s.ctx.cfg.MemoryOversubscriptionEnabled = tc.oversubscribe
			var m structs.AllocMetric
			var opt option
			if !g.fit(n, &m, nil, &opt) {
				t.Fatalf("no fit: %+v", m)
			}
			ar := g.resources(&opt)
			tr := ar.Tasks["web"]
			if tr.CpuShares != 300 || tr.MemoryMB != int64(tc.memory) || tr.MemoryMaxMB != tc.wantMax || ar.Shared.DiskMB != 150 {
				t.Fatalf("granted %+v, disk %d", tr, ar.Shared.DiskMB)
			}
			if tr.ReservedCores != nil || tr.Networks != nil || ar.Shared.Networks != nil || ar.Shared.Ports != nil {
				t.Fatalf("granted cores or networks not asked for: %+v %+v", tr, ar.Shared)
			}
		})
	}
}

// TestFit_NetworksGranted checks that a group's and a task's networks end
// up in the granted resources, with the node's IP.
func TestFit_NetworksGranted(t *testing.T) {
	h := newHarness(t)
	n := mockNode()
	n.NodeResources.Networks = []*structs.NetworkResource{{IP: "10.1.1.1"}}
	h.upsertNode(n)
	job := mockJob("web", 1)
	job.TaskGroups[0].Networks = []*structs.NetworkResource{{ReservedPorts: []structs.Port{{Label: "http", Value: 8080, To: 80}}}}
	job.TaskGroups[0].Tasks[0].Resources.Networks = []*structs.NetworkResource{{ReservedPorts: []structs.Port{{Label: "admin", Value: 9090}}}}
	g := h.groupOn(job, n)
	var m structs.AllocMetric
	var opt option
	if !g.fit(n, &m, nil, &opt) {
		t.Fatalf("no fit: %+v", m)
	}
	ar := g.resources(&opt)
	want := []structs.AllocatedPortMapping{{Label: "http", Value: 8080, To: 80, HostIP: "10.1.1.1"}}
	if !slices.Equal(ar.Shared.Ports, want) || len(ar.Shared.Networks) != 1 || ar.Shared.Networks[0].IP != "10.1.1.1" {
		t.Fatalf("shared %+v", ar.Shared)
	}
	task := ar.Tasks["web"].Networks
	if len(task) != 1 || task[0].ReservedPorts[0].Value != 9090 || task[0].IP != "10.1.1.1" {
		t.Fatalf("task networks %+v", task)
	}
}

// TestFit_ExhaustedRecordsNodeClass checks the metric of a node that is
// short: one exhausted node, its dimension and its class, keyed by the
// node_class the operator set (as Nomad does), never the computed-class
// hash, which means nothing to a reader.
func TestFit_ExhaustedRecordsNodeClass(t *testing.T) {
	h := newHarness(t)
	big := mockNode()
	big.NodeClass = "big"
	n := h.upsertNode(big)
	job := mockJob("web", 1)
	job.TaskGroups[0].Tasks[0].Resources.MemoryMB = 9000
	g := h.groupOn(job, n)
	var m structs.AllocMetric
	var opt option
	if g.fit(n, &m, nil, &opt) {
		t.Fatal("9000 MB fit on a node of 8192")
	}
	if m.NodesExhausted != 1 || m.DimensionExhausted["memory"] != 1 || m.ClassExhausted["big"] != 1 || len(m.ClassExhausted) != 1 {
		t.Fatalf("metric %+v", m)
	}
}

// TestScore_PenaltyComponent checks that the reschedule penalty applies
// to every candidate of a placement that has penalised nodes (0 on the
// others), and to none when there are none.
func TestScore_PenaltyComponent(t *testing.T) {
	h := newHarness(t)
	a, b := h.upsertNode(mockNode()), h.upsertNode(mockNode())
	job := mockJob("web", 1)
	cases := []struct {
		name     string
		penalty  map[string]bool
		node     *structs.Node
		want     float64
		wantKept bool
	}{
		{"no penalised node", nil, a, 0, false},
		{"another node penalised", map[string]bool{b.ID: true}, a, 0, true},
		{"this node penalised", map[string]bool{a.ID: true}, a, -1, true},
	}
	for _, tc := range cases {
		g := h.groupOn(job, a, b)
		var m structs.AllocMetric
		var opt option
		if !g.fit(tc.node, &m, tc.penalty, &opt) {
			t.Fatalf("%s: no fit", tc.name)
		}
		got, kept := opt.scores.asMap()[ScoreReschedulePenalty]
		if kept != tc.wantKept || got != tc.want {
			t.Fatalf("%s: penalty %v (recorded %v), want %v (%v)", tc.name, got, kept, tc.want, tc.wantKept)
		}
		fit := opt.scores.asMap()[ScoreBinpack]
		if wantFinal := (fit + tc.want) / 3; tc.wantKept && !near(opt.final, wantFinal) {
			t.Fatalf("%s: final %v, want %v", tc.name, opt.final, wantFinal)
		}
	}
}
