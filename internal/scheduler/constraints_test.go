package scheduler

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func constraintNode() *structs.Node {
	return &structs.Node{
		ID: "n-1", Name: "host-1", Datacenter: "dc1", NodeClass: "large", NodePool: "prod",
		Attributes: map[string]string{
			"kernel.name": "linux", "cpu.numcores": "8", "driver.docker.version": "24.0.7",
			"nomad.version": "1.7.2-beta.1", "tags": "a, b,c", "unique.hostname": "host-1",
		},
		Meta: map[string]string{"rack": "r3", "zone": "us-1a"},
	}
}

func TestConstraintOperators(t *testing.T) {
	cases := []struct {
		l, op, r string
		want     bool
	}{
		{"${attr.kernel.name}", "=", "linux", true},
		{"${attr.kernel.name}", "==", "linux", true},
		{"${attr.kernel.name}", "=", "windows", false},
		{"${attr.missing}", "=", "linux", false},
		{"${attr.kernel.name}", "!=", "windows", true},
		{"${attr.kernel.name}", "!=", "linux", false},
		{"${attr.missing}", "!=", "linux", true},
		{"${attr.cpu.numcores}", ">", "4", true},
		{"${attr.cpu.numcores}", ">", "10", false}, // numeric, not lexical
		{"${attr.cpu.numcores}", ">=", "8", true},
		{"${attr.cpu.numcores}", "<", "16", true},
		{"${attr.cpu.numcores}", "<=", "7", false},
		{"${meta.rack}", "<", "r4", true}, // lexical for strings
		{"${attr.missing}", "<", "4", false},
		{"${attr.kernel.name}", "regexp", "^lin.x$", true},
		{"${attr.kernel.name}", "regexp", "^win", false},
		{"${attr.kernel.name}", "regexp", "([", false}, // invalid pattern never matches
		{"${attr.tags}", "set_contains", "a,c", true},
		{"${attr.tags}", "set_contains", "a,d", false},
		{"${attr.tags}", "set_contains_all", "b, c", true},
		{"${attr.tags}", "set_contains_any", "x,c", true},
		{"${attr.tags}", "set_contains_any", "x,y", false},
		{"${attr.driver.docker.version}", "version", ">= 20.10, < 25", true},
		{"${attr.driver.docker.version}", "version", "~> 24.0", true},
		{"${attr.driver.docker.version}", "version", "~> 23.0", false},
		{"${attr.driver.docker.version}", "version", "!= 24.0.7", false},
		{"${attr.nomad.version}", "version", ">= 1.7.0", false},        // prerelease needs a prerelease term
		{"${attr.nomad.version}", "version", ">= 1.7.2-alpha", true},   // same release, later prerelease
		{"${attr.nomad.version}", "semver", ">= 1.7.0", true},          // semver orders prereleases normally
		{"${attr.nomad.version}", "semver", ">= 1.7.2", false},         // 1.7.2-beta.1 < 1.7.2
		{"${attr.nomad.version}", "semver", "> 1.7.2-beta.0", true},    // numeric prerelease identifiers
		{"${attr.kernel.name}", "semver", ">= 1.0.0", false},           // not a version
		{"${attr.driver.docker.version}", "version", "garbage", false}, // bad constraint
		{"${attr.kernel.name}", "is_set", "", true},
		{"${attr.missing}", "is_set", "", false},
		{"${attr.missing}", "is_not_set", "", true},
		{"${attr.kernel.name}", "is_not_set", "", false},
		{"${node.unique.id}", "=", "n-1", true},
		{"${node.unique.name}", "=", "host-1", true},
		{"${node.datacenter}", "=", "dc1", true},
		{"${node.class}", "=", "large", true},
		{"${node.pool}", "=", "prod", true},
		{"${meta.zone}", "=", "us-1a", true},
		{"${meta.rack}", "=", "${meta.rack}", true}, // both sides interpolate
		{"${attr.kernel.name}", "distinct_hosts", "", true},
		{"${meta.rack}", "distinct_property", "2", true},
		{"${attr.kernel.name}", "bogus", "linux", false},
	}
	ctx := newEvalContext(nil, &structs.Evaluation{ID: "e"}, nil, &structs.Plan{}, nil, t0)
	n := constraintNode()
	for _, tc := range cases {
		c := &structs.Constraint{LTarget: tc.l, Operand: tc.op, RTarget: tc.r}
		if got := ctx.checkConstraint(c, n); got != tc.want {
			t.Errorf("%s: got %v, want %v", constraintString(c), got, tc.want)
		}
	}
}

func TestVersionCompare(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"1.2.3", "1.2.3", 0},
		{"1.2", "1.2.0", 0},
		{"v1.10.0", "1.9.9", 1},
		{"1.0.0-alpha", "1.0.0", -1},
		{"1.0.0-alpha", "1.0.0-alpha.1", -1},
		{"1.0.0-alpha.beta", "1.0.0-beta", -1},
		{"1.0.0-beta.2", "1.0.0-beta.11", -1},
		{"1.0.0-rc.1", "1.0.0-beta.11", 1},
		{"1.0.0+build.5", "1.0.0", 0},
	}
	for _, tc := range cases {
		a, ok1 := parseVersion(tc.a)
		b, ok2 := parseVersion(tc.b)
		if !ok1 || !ok2 {
			t.Fatalf("parse %q %q", tc.a, tc.b)
		}
		if got := a.compare(b); got != tc.want {
			t.Errorf("compare(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	for _, bad := range []string{"", "x.y", "1..2", "1.2-", "-1", "+5"} {
		if _, ok := parseVersion(bad); ok {
			t.Errorf("parseVersion(%q) accepted", bad)
		}
	}
}

func TestComputeClass_IgnoresUniqueAttributes(t *testing.T) {
	a, b := constraintNode(), constraintNode()
	b.ID, b.Name = "n-2", "host-2"
	b.Attributes["unique.hostname"] = "host-2"
	b.Meta = map[string]string{"rack": "r3", "zone": "us-1a", "unique.serial": "x"}
	if ComputeClass(a) != ComputeClass(b) {
		t.Fatal("nodes differing only in unique values got different classes")
	}
	for name, change := range map[string]func(n *structs.Node){
		"datacenter": func(n *structs.Node) { n.Datacenter = "dc2" },
		"pool":       func(n *structs.Node) { n.NodePool = "dev" },
		"class":      func(n *structs.Node) { n.NodeClass = "small" },
		"attribute":  func(n *structs.Node) { n.Attributes["kernel.name"] = "darwin" },
		"meta":       func(n *structs.Node) { n.Meta["rack"] = "r4" },
		"driver":     func(n *structs.Node) { n.Drivers = map[string]*structs.DriverInfo{"exec": {Detected: true}} },
	} {
		c := constraintNode()
		change(c)
		if ComputeClass(c) == ComputeClass(a) {
			t.Errorf("%s change kept the class", name)
		}
	}
}

func TestFeasibility_Filters(t *testing.T) {
	cases := []struct {
		name   string
		change func(j *structs.Job, n *structs.Node)
		reason string
	}{
		{"feasible", func(j *structs.Job, n *structs.Node) {}, ""},
		{"missing driver", func(j *structs.Job, n *structs.Node) { j.TaskGroups[0].Tasks[0].Driver = "docker" }, FilterConstraintDrivers},
		{"unhealthy driver", func(j *structs.Job, n *structs.Node) { n.Drivers["exec"].Healthy = false }, FilterConstraintDrivers},
		{"driver attribute", func(j *structs.Job, n *structs.Node) {
			j.TaskGroups[0].Tasks[0].Driver = "raw_exec"
			n.Attributes["driver.raw_exec"] = "1"
		}, ""},
		{"job constraint", func(j *structs.Job, n *structs.Node) {
			j.Constraints = []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "windows", Operand: "="}}
		}, "${attr.kernel.name} = windows"},
		{"task constraint", func(j *structs.Job, n *structs.Node) {
			j.TaskGroups[0].Tasks[0].Constraints = []*structs.Constraint{{LTarget: "${meta.rack}", RTarget: "r9", Operand: "="}}
		}, "${meta.rack} = r9"},
		{"unique constraint escapes", func(j *structs.Job, n *structs.Node) {
			j.TaskGroups[0].Constraints = []*structs.Constraint{{LTarget: "${node.unique.name}", RTarget: "other", Operand: "="}}
		}, "${node.unique.name} = other"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j, n := mockJob("web", 1), mockNode()
			tc.change(j, n)
			ctx := newEvalContext(nil, &structs.Evaluation{ID: "e"}, j, &structs.Plan{}, nil, t0)
			f := newFeasibility(ctx, j, j.TaskGroups[0])
			m := &structs.AllocMetric{}
			ok := f.feasible(n, m)
			if ok != (tc.reason == "") {
				t.Fatalf("feasible = %v, metric %+v", ok, m)
			}
			if tc.reason != "" && m.ConstraintFiltered[tc.reason] != 1 {
				t.Fatalf("constraint filtered %v, want %q", m.ConstraintFiltered, tc.reason)
			}
			if tc.name == "unique constraint escapes" && !ctx.escaped {
				t.Fatal("unique constraint did not escape the class cache")
			}
		})
	}
}

func TestFeasibility_ClassCacheCountsClassFiltered(t *testing.T) {
	j := mockJob("web", 1)
	j.Constraints = []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "windows", Operand: "="}}
	ctx := newEvalContext(nil, &structs.Evaluation{ID: "e"}, j, &structs.Plan{}, nil, t0)
	f := newFeasibility(ctx, j, j.TaskGroups[0])
	m := &structs.AllocMetric{}
	a, b := mockNode(), mockNode()
	a.NodeClass, b.NodeClass = "linux", "linux"
	f.feasible(a, m)
	f.feasible(b, m)
	class := ComputeClass(a)
	if m.NodesEvaluated != 2 || m.NodesFiltered != 2 || m.ClassFiltered["linux"] != 1 || m.ConstraintFiltered["${attr.kernel.name} = windows"] != 1 {
		t.Fatalf("metric %+v", m)
	}
	if elig, ok := ctx.eligible[class]; !ok || elig {
		t.Fatalf("class eligibility %v", ctx.eligible)
	}
}

func TestServiceSched_DatacenterGlobAndPool(t *testing.T) {
	h := newHarness(t)
	in := mockNode()
	in.Datacenter = "us-east-1"
	out := mockNode()
	out.Datacenter = "eu-west-1"
	other := mockNode()
	other.Datacenter, other.NodePool = "us-east-2", "gpu"
	h.upsertNode(in)
	h.upsertNode(out)
	h.upsertNode(other)
	j := mockJob("web", 3)
	j.Datacenters = []string{"us-*"}
	job, _ := h.register(j)
	for _, a := range h.liveAllocs(job) {
		if a.NodeID != in.ID {
			t.Fatalf("placed on %s", a.NodeID)
		}
	}
	if m := h.lastEval().FailedTGAllocs["web"]; m != nil {
		t.Fatalf("unexpected failures %+v", m)
	}
	if n := h.plans[0].NodeAllocation[in.ID]; len(n) != 3 {
		t.Fatalf("allocs on the only matching node: %d", len(n))
	}
	m := h.plans[0].NodeAllocation[in.ID][0].Metrics
	if m.NodesAvailable["us-east-1"] != 1 || m.NodesInPool != 2 {
		t.Fatalf("metrics available=%v inpool=%d", m.NodesAvailable, m.NodesInPool)
	}
}

func TestServiceSched_NotReadyNodesAreNotCandidates(t *testing.T) {
	h := newHarness(t)
	down := mockNode()
	down.Status = structs.NodeStatusDown
	inel := mockNode()
	inel.SchedulingEligibility = structs.NodeSchedulingIneligible
	drain := mockNode()
	drain.DrainStrategy = &structs.DrainStrategy{Deadline: -1}
	ok := mockNode()
	for _, n := range []*structs.Node{down, inel, drain, ok} {
		h.upsertNode(n)
	}
	job, _ := h.register(mockJob("web", 2))
	for _, a := range h.liveAllocs(job) {
		if a.NodeID != ok.ID {
			t.Fatalf("placed on non-ready node %s", a.NodeID)
		}
	}
}

func TestDistinctHosts_OnePerNode(t *testing.T) {
	h := newHarness(t)
	nodes(h, 3)
	j := mockJob("web", 4)
	j.Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctHosts}}
	job, _ := h.register(j)
	seen := map[string]bool{}
	for _, a := range h.liveAllocs(job) {
		if seen[a.NodeID] {
			t.Fatalf("two allocs on %s", a.NodeID)
		}
		seen[a.NodeID] = true
	}
	if len(seen) != 3 {
		t.Fatalf("placed %d", len(seen))
	}
	m := h.lastEval().FailedTGAllocs["web"]
	if m == nil || m.ConstraintFiltered[FilterConstraintDistinctHosts] != 3 {
		t.Fatalf("failure metric %+v", m)
	}
}

func TestDistinctProperty_LimitPerValue(t *testing.T) {
	h := newHarness(t)
	for i := 0; i < 6; i++ {
		n := mockNode()
		n.Meta["rack"] = []string{"r1", "r2", "r3"}[i%3]
		h.upsertNode(n)
	}
	j := mockJob("web", 7)
	j.TaskGroups[0].Constraints = []*structs.Constraint{{LTarget: "${meta.rack}", RTarget: "2", Operand: structs.ConstraintDistinctProperty}}
	job, _ := h.register(j)
	live := h.liveAllocs(job)
	if len(live) != 6 {
		t.Fatalf("placed %d, want 6 (3 racks x limit 2)", len(live))
	}
	perRack := map[string]int{}
	for _, a := range live {
		n, _ := h.store.NodeByID(nil, a.NodeID)
		perRack[n.Meta["rack"]]++
	}
	for rack, c := range perRack {
		if c != 2 {
			t.Fatalf("rack %s has %d", rack, c)
		}
	}
	if m := h.lastEval().FailedTGAllocs["web"]; m == nil || m.ConstraintFiltered[FilterConstraintDistinctProperty] == 0 {
		t.Fatalf("failure metric %+v", m)
	}
}

func TestVersionConstraint_Check(t *testing.T) {
	cases := []struct {
		constraint, version string
		strict              bool
		want                bool
	}{
		{"> 1.2.0", "1.2.0", false, false},
		{">= 1.2.0", "1.2.0", false, true},
		{"< 1.2.0", "1.2.0", false, false},
		{"<= 1.2.0", "1.2.0", false, true},
		{"= 1.2", "1.2.0", false, true},
		{"!= 1.2", "1.2.0", false, false},
		{"~> 1.2.3", "1.2.3", false, true},
		{"~> 1.2.3", "1.2.9", false, true},
		{"~> 1.2.3", "1.3.0", false, false},
		{"~> 1.2.3", "1.2.2", false, false},
		{"~> 1.2", "1.9", false, true},
		{"~> 1.2", "2.0", false, false},
		{"~> 1", "1.5", false, true},
		{"~> 1", "2.0", false, false},
		// The loose operator lets a prerelease match only a term that
		// names a prerelease of the same release.
		{">= 1.7.2-alpha", "1.7.2-beta.1", false, true},
		{">= 1.7.1-alpha", "1.7.2-beta.1", false, false},
		{">= 1.7.1-alpha", "1.7.2-beta.1", true, true},
	}
	for _, tc := range cases {
		c, ok := parseVersionConstraint(tc.constraint, tc.strict)
		v, vok := parseVersion(tc.version)
		if !ok || !vok {
			t.Fatalf("parse %q / %q", tc.constraint, tc.version)
		}
		if got := c.check(v); got != tc.want {
			t.Errorf("%q (strict %v) on %s: %v, want %v", tc.constraint, tc.strict, tc.version, got, tc.want)
		}
	}
}
