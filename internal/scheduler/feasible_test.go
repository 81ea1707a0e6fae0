package scheduler

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestReadyFilter(t *testing.T) {
	cases := []struct {
		name   string
		change func(n *structs.Node)
		reason string
	}{
		{"ready", func(n *structs.Node) {}, ""},
		{"down", func(n *structs.Node) { n.Status = structs.NodeStatusDown }, FilterNodeNotReady},
		{"initializing", func(n *structs.Node) { n.Status = structs.NodeStatusInit }, FilterNodeNotReady},
		{"draining", func(n *structs.Node) { n.DrainStrategy = &structs.DrainStrategy{} }, FilterNodeDraining},
		{"ineligible", func(n *structs.Node) { n.SchedulingEligibility = structs.NodeSchedulingIneligible }, FilterNodeIneligible},
		{"down and draining: not ready first", func(n *structs.Node) {
			n.Status = structs.NodeStatusDown
			n.DrainStrategy = &structs.DrainStrategy{}
		}, FilterNodeNotReady},
	}
	for _, tc := range cases {
		n := mockNode()
		tc.change(n)
		ok, reason := readyFilter().filter(n)
		if ok != (tc.reason == "") || reason != tc.reason {
			t.Errorf("%s: %v %q, want %q", tc.name, ok, reason, tc.reason)
		}
	}
}

func TestInDatacenters(t *testing.T) {
	cases := []struct {
		patterns []string
		dc       string
		want     bool
	}{
		{nil, "dc1", true},
		{[]string{"dc1"}, "dc1", true},
		{[]string{"dc2", "dc1"}, "dc1", true},
		{[]string{"dc2"}, "dc1", false},
		{[]string{"*"}, "anything", true},
		{[]string{"us-*"}, "us-east-1", true},
		{[]string{"us-*"}, "eu-west-1", false},
		{[]string{"dc?"}, "dc7", true},
		{[]string{"["}, "[", true},
		{[]string{"[", "x"}, "dc1", false},
	}
	for _, tc := range cases {
		if got := inDatacenters(tc.patterns, tc.dc); got != tc.want {
			t.Errorf("%v ~ %q: %v, want %v", tc.patterns, tc.dc, got, tc.want)
		}
	}
	j := mockJob("web", 1)
	j.Datacenters = []string{"dc2"}
	if ok, reason := datacenterFilter(j).filter(mockNode()); ok || reason != FilterConstraintDatacenter {
		t.Fatalf("dc filter: %v %q", ok, reason)
	}
}

func TestInPool(t *testing.T) {
	cases := []struct {
		job, node string
		want      bool
	}{
		{"", "", true},
		{"", structs.DefaultNodePool, true},
		{structs.DefaultNodePool, "", true},
		{"", "gpu", false},
		{"gpu", "", false},
		{"gpu", "gpu", true},
		{structs.AllNodePools, "gpu", true},
		{structs.AllNodePools, "", true},
	}
	for _, tc := range cases {
		j := mockJob("web", 1)
		j.NodePool = tc.job
		n := mockNode()
		n.NodePool = tc.node
		if got := inPool(j, n); got != tc.want {
			t.Errorf("job pool %q, node pool %q: %v, want %v", tc.job, tc.node, got, tc.want)
		}
		if ok, reason := poolFilter(j).filter(n); ok != tc.want || (!ok && reason != FilterConstraintNodePool) {
			t.Errorf("pool filter %q/%q: %v %q", tc.job, tc.node, ok, reason)
		}
	}
}

func TestHasDriver(t *testing.T) {
	cases := []struct {
		name   string
		info   *structs.DriverInfo
		hasKey bool
		attr   string // "" for none
		want   bool
	}{
		{"detected and healthy", &structs.DriverInfo{Detected: true, Healthy: true}, true, "", true},
		{"unhealthy", &structs.DriverInfo{Detected: true}, true, "1", false},
		{"not detected", &structs.DriverInfo{Healthy: true}, true, "1", false},
		{"nil info falls back to the attribute", nil, true, "true", true},
		{"attribute only", nil, false, "1", true},
		{"attribute false", nil, false, "false", false},
		{"attribute not a bool", nil, false, "yes", false},
		{"neither", nil, false, "", false},
	}
	for _, tc := range cases {
		n := &structs.Node{Drivers: map[string]*structs.DriverInfo{}, Attributes: map[string]string{}}
		if tc.hasKey {
			n.Drivers["raw_exec"] = tc.info
		}
		if tc.attr != "" {
			n.Attributes["driver.raw_exec"] = tc.attr
		}
		if got := hasDriver(n, "raw_exec"); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFeasibility_Metrics checks what the chain records per node: every
// node evaluated, a class rejection named by its constraint the first
// time and by its class afterwards, a per-node rejection by its reason
// every time, and nothing for a feasible node.
func TestFeasibility_Metrics(t *testing.T) {
	j := mockJob("web", 1)
	j.Constraints = []*structs.Constraint{{LTarget: "${meta.rack}", RTarget: "r1", Operand: "="}}
	j.TaskGroups[0].Constraints = []*structs.Constraint{{LTarget: "${attr.unique.hostname}", RTarget: "bad", Operand: "!="}}
	ctx := newEvalContext(nil, &structs.Evaluation{ID: "e"}, j, &structs.Plan{}, nil, t0)
	f := newFeasibility(ctx, j, j.TaskGroups[0])
	if !ctx.escaped || len(f.nodeFilters) != 1 {
		t.Fatalf("unique constraint: escaped %v, %d node filters", ctx.escaped, len(f.nodeFilters))
	}
	rack := func(r string) *structs.Node { n := mockNode(); n.Meta["rack"] = r; return n }
	good, other := rack("r1"), rack("r2")
	bad := rack("r1")
	bad.Attributes["unique.hostname"] = "bad"
	otherAgain := rack("r2")
	m := &structs.AllocMetric{}
	got := []bool{f.feasible(good, m), f.feasible(other, m), f.feasible(bad, m), f.feasible(otherAgain, m), f.feasible(bad, m)}
	want := []bool{true, false, false, false, false}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("feasible %v, want %v", got, want)
		}
	}
	class := ctx.classOf(other)
	if m.NodesEvaluated != 5 || m.NodesFiltered != 4 || m.ClassFiltered[class] != 1 || len(m.ClassFiltered) != 1 ||
		m.ConstraintFiltered["${meta.rack} = r1"] != 1 || m.ConstraintFiltered["${attr.unique.hostname} != bad"] != 2 {
		t.Fatalf("metric %+v", m)
	}
	if !ctx.eligible[ctx.classOf(good)] || ctx.eligible[class] {
		t.Fatalf("class eligibility %v", ctx.eligible)
	}
	if !f.classFeasible(good) || f.classFeasible(other) || !f.classFeasible(bad) {
		t.Fatal("class feasibility")
	}
}

// TestFeasibility_ClassFeasibleFirstSeen checks classFeasible on a class
// the chain has not met: it runs the class filters and remembers them.
func TestFeasibility_ClassFeasibleFirstSeen(t *testing.T) {
	j := mockJob("web", 1)
	j.TaskGroups[0].Tasks[0].Driver = "docker"
	ctx := newEvalContext(nil, &structs.Evaluation{ID: "e"}, j, &structs.Plan{}, nil, t0)
	f := newFeasibility(ctx, j, j.TaskGroups[0])
	withDocker := mockNode()
	withDocker.Drivers["docker"] = &structs.DriverInfo{Detected: true, Healthy: true}
	without := mockNode()
	if !f.classFeasible(withDocker) || f.classFeasible(without) {
		t.Fatal("class feasibility by driver")
	}
	if ok, cached := f.classCache[ctx.classOf(without)]; !cached || ok.ok || ok.reason != FilterConstraintDrivers {
		t.Fatalf("cache %+v", f.classCache)
	}
	if elig := ctx.classEligibility(); !elig[ctx.classOf(withDocker)] || elig[ctx.classOf(without)] {
		t.Fatalf("eligibility %v", elig)
	}
	m := &structs.AllocMetric{}
	if f.feasible(without, m) || m.ClassFiltered[ctx.classOf(without)] != 1 {
		t.Fatalf("cached rejection not counted by class: %+v", m)
	}
}

// TestFeasibility_HostVolumesRunPerNode checks that a host volume claim is
// checked on each node, not per class, and names the missing volume.
func TestFeasibility_HostVolumesRunPerNode(t *testing.T) {
	j := mockJob("web", 1)
	j.TaskGroups[0].Volumes = map[string]*structs.VolumeRequest{"data": {Name: "data", Type: structs.VolumeTypeHost, Source: "shared"}}
	ctx := newEvalContext(nil, &structs.Evaluation{ID: "e"}, j, &structs.Plan{}, nil, t0)
	f := newFeasibility(ctx, j, j.TaskGroups[0])
	with := mockNode()
	with.HostVolumes = map[string]*structs.ClientHostVolumeConfig{"shared": {}}
	without := mockNode()
	m := &structs.AllocMetric{}
	if !f.feasible(with, m) || f.feasible(without, m) || m.ConstraintFiltered[FilterHostVolumes+": shared"] != 1 {
		t.Fatalf("metric %+v", m)
	}
	if ctx.escaped {
		t.Fatal("a host volume claim is not an escaped constraint")
	}
}

// TestFeasibility_NetworkModeNeedsItsCNIPlugins checks, as a table, which
// nodes a group's network mode may use and the reason naming what the
// others lack.
func TestFeasibility_NetworkModeNeedsItsCNIPlugins(t *testing.T) {
	bridgePlugins := map[string]string{}
	for _, p := range []string{"bridge", "firewall", "host-local", "loopback", "portmap"} {
		bridgePlugins["plugins.cni.version."+p] = "1.1.1"
	}
	without := func(attr string) map[string]string {
		m := map[string]string{}
		for k, v := range bridgePlugins {
			if k != attr {
				m[k] = v
			}
		}
		return m
	}
	with := func(extra string) map[string]string {
		m := without("")
		m[extra] = "true"
		return m
	}
	cases := []struct {
		name, mode string
		attrs      map[string]string
		reason     string // "" : feasible
	}{
		{"host mode needs nothing", "host", nil, ""},
		{"no network block mode", "", nil, ""},
		{"bridge with every plugin", "bridge", bridgePlugins, ""},
		{"bridge without portmap", "bridge", without("plugins.cni.version.portmap"), FilterCNIPlugin + ": portmap"},
		{"bridge on a node without CNI", "bridge", nil, FilterCNIPlugin + ": bridge"},
		{"none needs loopback", "none", nil, FilterCNIPlugin + ": loopback"},
		{"none with loopback", "none", map[string]string{"plugins.cni.version.loopback": "unknown"}, ""},
		{"cni network present", "cni/mynet", with("plugins.cni.config.mynet"), ""},
		{"cni network missing", "cni/mynet", with("plugins.cni.config.other"), FilterCNINetwork + ": mynet"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := mockJob("web", 1)
			if tc.mode != "" {
				j.TaskGroups[0].Networks = []*structs.NetworkResource{{Mode: tc.mode}}
			}
			ctx := newEvalContext(nil, &structs.Evaluation{ID: "e"}, j, &structs.Plan{}, nil, t0)
			f := newFeasibility(ctx, j, j.TaskGroups[0])
			n := mockNode()
			for k, v := range tc.attrs {
				n.Attributes[k] = v
			}
			m := &structs.AllocMetric{}
			ok := f.feasible(n, m)
			if ok != (tc.reason == "") || (tc.reason != "" && m.ConstraintFiltered[tc.reason] != 1) {
				t.Fatalf("feasible %v, metric %+v; want reason %q", ok, m.ConstraintFiltered, tc.reason)
			}
		})
	}
}
