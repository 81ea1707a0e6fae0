package scheduler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

func TestScore_FitBinpackAndSpread(t *testing.T) {
	capacity := &structs.ComparableResources{CpuShares: 14000, MemoryMB: 32000}
	cases := []struct {
		name      string
		used      structs.ComparableResources
		algorithm string
		want      float64
	}{
		{"empty node binpack", structs.ComparableResources{}, structs.SchedulerAlgorithmBinpack, 0},
		{"full node binpack", *capacity, structs.SchedulerAlgorithmBinpack, 1},
		{"half node binpack", structs.ComparableResources{CpuShares: 7000, MemoryMB: 16000}, structs.SchedulerAlgorithmBinpack, (20 - 2*math.Pow(10, 0.5)) / 18},
		{"empty node spread", structs.ComparableResources{}, structs.SchedulerAlgorithmSpread, 1},
		{"full node spread", *capacity, structs.SchedulerAlgorithmSpread, 0},
	}
	for _, tc := range cases {
		if got := fitScore(tc.algorithm, capacity, &tc.used); !near(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	fuller := fitScore(structs.SchedulerAlgorithmBinpack, capacity, &structs.ComparableResources{CpuShares: 12000, MemoryMB: 12000})
	emptier := fitScore(structs.SchedulerAlgorithmBinpack, capacity, &structs.ComparableResources{CpuShares: 6000, MemoryMB: 6000})
	if fuller <= emptier {
		t.Fatal("binpack must prefer the fuller node")
	}
}

func TestScore_JobAntiAffinity(t *testing.T) {
	cases := []struct {
		collisions, count int
		want              float64
	}{
		{0, 3, 0}, {1, 3, -2.0 / 3}, {2, 10, -0.3}, {1, 0, 0},
	}
	for _, tc := range cases {
		if got := antiAffinityScore(tc.collisions, tc.count); !near(got, tc.want) {
			t.Errorf("%d/%d: %v, want %v", tc.collisions, tc.count, got, tc.want)
		}
	}
}

func TestScore_MeanOfApplicableComponents(t *testing.T) {
	var s scores
	s.add(scoreFit, 0.8)
	s.add(scoreAntiAffinity, 0)
	s.add(scoreSpread, -0.2)
	if !near(s.mean(), 0.2) {
		t.Fatalf("mean %v", s.mean())
	}
	if m := s.asMap(); len(m) != 3 || m[ScoreBinpack] != 0.8 {
		t.Fatalf("map %v", m)
	}
}

func TestScore_Affinity(t *testing.T) {
	j := mockJob("web", 1)
	j.Affinities = []*structs.Affinity{
		{LTarget: "${meta.rack}", RTarget: "r1", Operand: "=", Weight: 50},
		{LTarget: "${attr.kernel.name}", RTarget: "windows", Operand: "=", Weight: 50},
		{LTarget: "${node.datacenter}", RTarget: "dc1", Operand: "=", Weight: -100},
	}
	ctx := newEvalContext(nil, &structs.Evaluation{ID: "e"}, j, &structs.Plan{}, nil, t0)
	a := newAffinityScorer(ctx, j, j.TaskGroups[0])
	n := mockNode()
	if got := a.score(n); !near(got, (50.0-100)/200) {
		t.Fatalf("affinity %v", got)
	}
	if got := a.score(n); !near(got, -0.25) {
		t.Fatalf("cached affinity %v", got)
	}
}

func TestScore_SpreadTargetsAndEven(t *testing.T) {
	node := func(rack string) *structs.Node {
		n := mockNode()
		n.Meta["rack"] = rack
		return n
	}
	j := mockJob("web", 10)
	j.Spreads = []*structs.Spread{{Attribute: "${meta.rack}", Weight: 100, SpreadTarget: []*structs.SpreadTarget{{Value: "r1", Percent: 70}, {Value: "r2", Percent: 20}}}}
	s := newSpreadScorer(j, j.TaskGroups[0])
	r1, r2, r3 := node("r1"), node("r2"), node("r3")
	if got := s.score(r1); !near(got, 1) {
		t.Fatalf("empty target %v", got)
	}
	for i := 0; i < 7; i++ {
		s.placed(r1, 1)
	}
	if got := s.score(r1); !near(got, 0) {
		t.Fatalf("target met %v", got)
	}
	s.placed(r2, 1)
	if got := s.score(r2); !near(got, 0.5) {
		t.Fatalf("half of r2 %v", got)
	}
	if got := s.score(r3); !near(got, 1) { // the remaining 10% goes to untargeted values
		t.Fatalf("untargeted %v", got)
	}
	s.placed(r3, 1)
	if got := s.score(r3); !near(got, 0) { // 10% of 10 is one alloc, now placed
		t.Fatalf("untargeted share met %v", got)
	}
	if got := s.score(mockNodeWithoutRack()); got != -1 {
		t.Fatalf("missing attribute %v", got)
	}
	full := mockJob("web", 10)
	full.Spreads = []*structs.Spread{{Attribute: "${meta.rack}", Weight: 100, SpreadTarget: []*structs.SpreadTarget{{Value: "r1", Percent: 60}, {Value: "r2", Percent: 40}}}}
	if got := newSpreadScorer(full, full.TaskGroups[0]).score(r3); got != -1 {
		t.Fatalf("untargeted value when the targets take 100%%: %v, want -1", got)
	}

	even := mockJob("web", 4)
	even.Spreads = []*structs.Spread{{Attribute: "${meta.rack}", Weight: 50}}
	es := newSpreadScorer(even, even.TaskGroups[0])
	es.setValues(4, []*structs.Node{r1, r2})
	es.placed(r1, 1)
	if a, b := es.score(r1), es.score(r2); !near(a, 0.5) || !near(b, 1) {
		t.Fatalf("even spread r1=%v r2=%v", a, b)
	}
}

func mockNodeWithoutRack() *structs.Node {
	n := mockNode()
	delete(n.Meta, "rack")
	return n
}

func TestRank_ReschedulePenaltyAvoidsFailedNode(t *testing.T) {
	h := newHarness(t)
	ns := nodes(h, 2)
	job := h.upsertJob(mockJob("web", 1))
	ctx := newEvalContext(h.store.Snapshot(), &structs.Evaluation{ID: "e"}, job, &structs.Plan{}, nil, t0)
	ctx.nodes = map[string]*structs.Node{ns[0].ID: ns[0], ns[1].ID: ns[1]}
	st := newPlacementStack(ctx, job, false, ns, nil)
	g := st.group(job.TaskGroups[0], nil)
	opt, m := g.selectNode(map[string]bool{ns[0].ID: true})
	if opt == nil || opt.node.ID != ns[1].ID {
		t.Fatalf("picked %v", opt)
	}
	var penalised bool
	for _, s := range m.ScoreMetaData {
		if s.NodeID == ns[0].ID && s.Scores[ScoreReschedulePenalty] == -1 {
			penalised = true
		}
	}
	if !penalised {
		t.Fatalf("score metadata %+v", m.ScoreMetaData)
	}
}

func TestRank_BinpackPacksSpreadAlgorithmSpreads(t *testing.T) {
	for _, algo := range []string{structs.SchedulerAlgorithmBinpack, structs.SchedulerAlgorithmSpread} {
		h := newHarness(t)
		nodes(h, 2) // the sample (2) covers every node
		h.must(h.store.SchedulerSetConfig(h.next(), &structs.SchedulerConfiguration{SchedulerAlgorithm: algo}))
		// Separate jobs, so job anti-affinity does not apply.
		used := map[string]bool{}
		for _, id := range []string{"a", "b", "c", "d"} {
			j := mockJob(id, 1)
			j.TaskGroups[0].Tasks[0].Resources = &structs.Resources{CPU: 1000, MemoryMB: 2048}
			job, _ := h.register(j)
			for _, a := range h.liveAllocs(job) {
				used[a.NodeID] = true
			}
		}
		want := 1
		if algo == structs.SchedulerAlgorithmSpread {
			want = 2
		}
		if len(used) != want {
			t.Errorf("%s used %d nodes, want %d", algo, len(used), want)
		}
	}
}

func TestRank_ResourceExhaustionByDimension(t *testing.T) {
	cases := []struct {
		name string
		res  structs.Resources
		disk int
		dim  string
	}{
		{"cpu", structs.Resources{CPU: 5000, MemoryMB: 10}, 0, "cpu"},
		{"memory", structs.Resources{CPU: 10, MemoryMB: 9000}, 0, "memory"},
		{"cores", structs.Resources{Cores: 5, MemoryMB: 10}, 0, "cores"},
		{"disk", structs.Resources{CPU: 10, MemoryMB: 10}, 200 * 1024, "disk"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			nodes(h, 1)
			j := mockJob("web", 1)
			r := tc.res
			j.TaskGroups[0].Tasks[0].Resources = &r
			if tc.disk > 0 {
				j.TaskGroups[0].EphemeralDisk = &structs.EphemeralDisk{SizeMB: tc.disk}
			}
			h.register(j)
			m := h.lastEval().FailedTGAllocs["web"]
			if m == nil || m.NodesExhausted != 1 || m.DimensionExhausted[tc.dim] != 1 {
				t.Fatalf("metric %+v", m)
			}
		})
	}
}

func TestRank_ReservedCoresAssigned(t *testing.T) {
	h := newHarness(t)
	nodes(h, 1)
	j := mockJob("web", 2)
	j.TaskGroups[0].Tasks[0].Resources = &structs.Resources{Cores: 2, MemoryMB: 100}
	job, _ := h.register(j)
	seen := map[uint16]bool{}
	for _, a := range h.liveAllocs(job) {
		tr := a.AllocatedResources.Tasks["web"]
		if len(tr.ReservedCores) != 2 || tr.CpuShares != 2000 {
			t.Fatalf("task resources %+v", tr)
		}
		for _, c := range tr.ReservedCores {
			if seen[c] {
				t.Fatalf("core %d granted twice", c)
			}
			seen[c] = true
		}
	}
}

func TestPorts_StaticAndDynamic(t *testing.T) {
	tg := func(static ...int) *structs.TaskGroup {
		nr := &structs.NetworkResource{DynamicPorts: []structs.Port{{Label: "http"}, {Label: "admin"}}}
		for _, p := range static {
			nr.ReservedPorts = append(nr.ReservedPorts, structs.Port{Label: "fixed", Value: p})
		}
		return &structs.TaskGroup{Name: "g", Networks: []*structs.NetworkResource{nr}}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := mockNode()
	n.ReservedResources = &structs.NodeReservedResources{ReservedPorts: "22,8000-8002"}
	n.NodeResources.MinDynamicPort, n.NodeResources.MaxDynamicPort = 30000, 30003
	n.NodeResources.Networks = []*structs.NetworkResource{{IP: "10.0.0.5"}}

	t.Run("static conflicts with node reserved", func(t *testing.T) {
		u := newNodeUsage(n)
		if _, reason := assignPorts(u, tg(8001), rng); reason != "network: reserved port collision fixed=8001" {
			t.Fatalf("reason %q", reason)
		}
	})
	t.Run("static conflicts with existing alloc", func(t *testing.T) {
		u := newNodeUsage(n)
		u.add(&structs.Allocation{ID: "a", AllocatedResources: &structs.AllocatedResources{Shared: structs.AllocatedSharedResources{Ports: []structs.AllocatedPortMapping{{Label: "x", Value: 9090}}}}})
		if _, reason := assignPorts(u, tg(9090), rng); reason == "" {
			t.Fatal("collision not detected")
		}
	})
	t.Run("dynamic within node range, no collisions, IP set", func(t *testing.T) {
		u := newNodeUsage(n)
		offer, reason := assignPorts(u, tg(80), rng)
		if reason != "" {
			t.Fatal(reason)
		}
		seen := map[int]bool{}
		for _, p := range offer.ports {
			if seen[p.Value] || p.HostIP != "10.0.0.5" {
				t.Fatalf("ports %+v", offer.ports)
			}
			seen[p.Value] = true
			if p.Label != "fixed" && (p.Value < 30000 || p.Value > 30003) {
				t.Fatalf("dynamic port %d outside the node's range", p.Value)
			}
		}
		u.add(&structs.Allocation{ID: "b", AllocatedResources: &structs.AllocatedResources{Shared: structs.AllocatedSharedResources{Ports: offer.ports}}})
		offer2, reason := assignPorts(u, tg(), rng)
		if reason != "" {
			t.Fatal(reason)
		}
		for _, p := range offer2.ports {
			if seen[p.Value] {
				t.Fatalf("port %d reused", p.Value)
			}
		}
		u.add(&structs.Allocation{ID: "c", AllocatedResources: &structs.AllocatedResources{Shared: structs.AllocatedSharedResources{Ports: offer2.ports}}})
		if _, reason := assignPorts(u, tg(), rng); reason != "network: dynamic port selection failed" {
			t.Fatalf("exhausted range gave %q", reason)
		}
	})
	t.Run("default range", func(t *testing.T) {
		plain := mockNode()
		lo, hi := dynamicRange(plain)
		if lo != 20000 || hi != 32000 {
			t.Fatalf("range %d-%d", lo, hi)
		}
	})
}

func TestServiceSched_PortsNeverCollideOnANode(t *testing.T) {
	h := newHarness(t)
	n := mockNode()
	n.NodeResources.MinDynamicPort, n.NodeResources.MaxDynamicPort = 25000, 25009
	h.upsertNode(n)
	j := mockJob("web", 5)
	j.TaskGroups[0].Tasks[0].Resources = &structs.Resources{CPU: 10, MemoryMB: 10}
	j.TaskGroups[0].Networks = []*structs.NetworkResource{{DynamicPorts: []structs.Port{{Label: "http"}, {Label: "grpc"}}}}
	job, _ := h.register(j) // the harness fails on duplicate ports
	if got := len(h.liveAllocs(job)); got != 5 {
		t.Fatalf("placed %d", got)
	}
	h.register(func() *structs.Job { k := j.Copy(); k.ID = "more"; k.TaskGroups[0].Count = 1; return k }())
	if m := h.lastEval().FailedTGAllocs["web"]; m == nil || m.DimensionExhausted["network: dynamic port selection failed"] != 1 {
		t.Fatalf("expected port exhaustion, got %+v", m)
	}
}

func TestFreeFraction(t *testing.T) {
	cases := []struct {
		used, capacity int64
		want           float64
	}{
		{0, 100, 1}, {25, 100, 0.75}, {100, 100, 0},
		{0, 0, 0}, {10, 0, 0}, // no capacity: no free room, not NaN
	}
	for _, tc := range cases {
		if got := freeFraction(tc.used, tc.capacity); !near(got, tc.want) {
			t.Errorf("freeFraction(%d, %d) = %v, want %v", tc.used, tc.capacity, got, tc.want)
		}
	}
}

func TestSamplingLimit(t *testing.T) {
	cases := []struct {
		n                  int
		batch, preferences bool
		want               int
	}{
		{0, false, false, 2},
		{1, false, false, 2},
		{4, false, false, 2},
		{5, false, false, 3},
		{1000, false, false, 10},
		{1000, true, false, batchSamplingLimit},
		{1000, false, true, PreferenceSamplingLimit},
		{1 << 20, false, true, PreferenceSamplingLimit},
		{1000, true, true, PreferenceSamplingLimit},
	}
	for _, tc := range cases {
		if got := samplingLimit(tc.n, tc.batch, tc.preferences); got != tc.want {
			t.Errorf("samplingLimit(%d, batch %v, preferences %v) = %d, want %d", tc.n, tc.batch, tc.preferences, got, tc.want)
		}
	}
}

// TestKeepTop checks the best-first list of node scores: at most topScores
// entries, the best first, and on equal scores the earlier one ahead.
func TestKeepTop(t *testing.T) {
	var top []option
	scores := []float64{0.5, 0.9, 0.5, 0.1, 0.7, 0.9, 0.3, 0.2}
	for i, s := range scores {
		o := option{node: &structs.Node{ID: string(rune('a' + i))}, final: s}
		top = keepTop(top, &o)
	}
	var got []string
	for _, o := range top {
		got = append(got, o.node.ID)
	}
	// b and f score 0.9, a and c 0.5: the earlier of each pair first.
	if want := []string{"b", "f", "e", "a", "c"}; !slices.Equal(got, want) {
		t.Fatalf("top %v, want %v", got, want)
	}
}

// A spread counts the allocs the group keeps: with two allocs already on
// rack r1 and an even spread over racks, the two new ones go to r2, even
// though binpacking alone would prefer the busier r1 nodes.
func TestRank_SpreadCountsTheGroupsKeptAllocs(t *testing.T) {
	h := newHarness(t)
	var r1, r2 []*structs.Node
	for _, rack := range []string{"r1", "r1", "r2", "r2"} {
		n := mockNode()
		n.Meta["rack"] = rack
		n = h.upsertNode(n)
		if rack == "r1" {
			r1 = append(r1, n)
		} else {
			r2 = append(r2, n)
		}
	}
	j := mockJob("web", 4)
	j.Spreads = []*structs.Spread{{Attribute: "${meta.rack}", Weight: 100}}
	job := h.upsertJob(j)
	kept := h.seedAllocs(job, r1, 0, 1)
	e := mockEval(job, structs.EvalTriggerJobRegister)
	h.must(h.store.UpsertEvals(h.next(), []*structs.Evaluation{e}))
	h.process(e)

	onR2 := map[string]bool{r2[0].ID: true, r2[1].ID: true}
	keptIDs := map[string]bool{kept[0].ID: true, kept[1].ID: true}
	live := h.liveAllocs(job)
	if len(live) != 4 {
		t.Fatalf("%d live allocs, want 4", len(live))
	}
	for _, a := range live {
		if !keptIDs[a.ID] && !onR2[a.NodeID] {
			t.Errorf("new alloc %s placed on %s (rack r1), want rack r2: the kept allocs were not counted", a.Name, a.NodeID)
		}
	}
}
