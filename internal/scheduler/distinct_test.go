package scheduler

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// TestDistinctFilters_Built checks which constraints become distinct
// filters, at every level: distinct_hosts unless its value is false.
func TestDistinctFilters_Built(t *testing.T) {
	hosts := func(v string) *structs.Constraint {
		return &structs.Constraint{Operand: structs.ConstraintDistinctHosts, RTarget: v}
	}
	prop := &structs.Constraint{Operand: structs.ConstraintDistinctProperty, LTarget: "${meta.rack}"}
	cases := []struct {
		name            string
		job, group, tsk []*structs.Constraint
		want            int
	}{
		{name: "none", want: 0},
		{name: "hosts without value", job: []*structs.Constraint{hosts("")}, want: 1},
		{name: "hosts true", group: []*structs.Constraint{hosts("true")}, want: 1},
		{name: "hosts false", group: []*structs.Constraint{hosts("false")}, want: 0},
		{name: "hosts unparsable counts as true", tsk: []*structs.Constraint{hosts("maybe")}, want: 1},
		{name: "property", tsk: []*structs.Constraint{prop}, want: 1},
		{name: "other operands are not distinct", job: []*structs.Constraint{{LTarget: "${meta.rack}", RTarget: "r1", Operand: "="}}, want: 0},
		{name: "every level", job: []*structs.Constraint{hosts("")}, group: []*structs.Constraint{prop}, tsk: []*structs.Constraint{hosts("1")}, want: 3},
	}
	for _, tc := range cases {
		j := mockJob("web", 1)
		j.Constraints, j.TaskGroups[0].Constraints, j.TaskGroups[0].Tasks[0].Constraints = tc.job, tc.group, tc.tsk
		ctx := newEvalContext(nil, &structs.Evaluation{ID: "e"}, j, &structs.Plan{}, nil, t0)
		if got := len(distinctFilters(ctx, j, j.TaskGroups[0])); got != tc.want {
			t.Errorf("%s: %d filters, want %d", tc.name, got, tc.want)
		}
	}
}

// twoGroupJob is a job of groups "a" and "b", one alloc each, with the
// constraint at job level or on group b.
func twoGroupJob(c *structs.Constraint, jobLevel bool) *structs.Job {
	j := mockJob("web", 1)
	a := j.TaskGroups[0]
	a.Name = "a"
	b := a.Copy()
	b.Name = "b"
	j.TaskGroups = append(j.TaskGroups, b)
	if jobLevel {
		j.Constraints = []*structs.Constraint{c}
	} else {
		b.Constraints = []*structs.Constraint{c}
	}
	j.Canonicalize()
	return j
}

// TestDistinct_Scope checks that a job-level distinct constraint counts
// the allocs of every group and a group-level one only its own group's.
func TestDistinct_Scope(t *testing.T) {
	cases := []struct {
		name       string
		constraint *structs.Constraint
		jobLevel   bool
		wantPlaced int
	}{
		{"job-level distinct_hosts", &structs.Constraint{Operand: structs.ConstraintDistinctHosts}, true, 1},
		{"group-level distinct_hosts", &structs.Constraint{Operand: structs.ConstraintDistinctHosts}, false, 2},
		{"job-level distinct_property", &structs.Constraint{Operand: structs.ConstraintDistinctProperty, LTarget: "${meta.rack}"}, true, 1},
		{"group-level distinct_property", &structs.Constraint{Operand: structs.ConstraintDistinctProperty, LTarget: "${meta.rack}"}, false, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.upsertNode(mockNode())
			job, _ := h.register(twoGroupJob(tc.constraint, tc.jobLevel))
			if got := len(h.liveAllocs(job)); got != tc.wantPlaced {
				t.Fatalf("placed %d, want %d", got, tc.wantPlaced)
			}
		})
	}
}

// TestDistinctProperty_Limits checks the limit read from RTarget (1 when
// missing, not a number or not positive) and that a node without the
// property is filtered.
func TestDistinctProperty_Limits(t *testing.T) {
	cases := []struct {
		rtarget    string
		wantPlaced int
	}{
		{"", 2}, {"0", 2}, {"-3", 2}, {"x", 2}, {"1", 2}, {"2", 4}, {"3", 6},
	}
	for _, tc := range cases {
		t.Run("limit "+tc.rtarget, func(t *testing.T) {
			h := newHarness(t)
			for _, rack := range []string{"r1", "r1", "r2", "r2", ""} {
				n := mockNode()
				n.Meta["rack"] = rack
				if rack == "" {
					delete(n.Meta, "rack")
				}
				h.upsertNode(n)
			}
			j := mockJob("web", 6)
			j.TaskGroups[0].Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctProperty, LTarget: "${meta.rack}", RTarget: tc.rtarget}}
			job, _ := h.register(j)
			live := h.liveAllocs(job)
			if len(live) != tc.wantPlaced {
				t.Fatalf("placed %d, want %d", len(live), tc.wantPlaced)
			}
			m := h.lastEval().FailedTGAllocs["web"]
			if tc.wantPlaced == 6 {
				if m != nil {
					t.Fatalf("all placed, yet failure %+v", m)
				}
				return
			}
			if m == nil || m.ConstraintFiltered[FilterConstraintDistinctProperty] == 0 {
				t.Fatalf("failure metric %+v", m)
			}
		})
	}
}

// TestDistinctProperty_StoredAllocsCount checks that the job's running
// allocs count toward the limit on a later eval, and that allocs the plan
// stops do not: a destructive update may reuse their racks.
func TestDistinctProperty_StoredAllocsCount(t *testing.T) {
	h := newHarness(t)
	for _, rack := range []string{"r1", "r2", "r1", "r2"} {
		n := mockNode()
		n.Meta["rack"] = rack
		h.upsertNode(n)
	}
	j := mockJob("web", 2)
	j.TaskGroups[0].Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctProperty, LTarget: "${meta.rack}"}}
	job, _ := h.register(j)
	if got := len(h.liveAllocs(job)); got != 2 {
		t.Fatalf("placed %d", got)
	}
	scaled := job.Copy()
	scaled.TaskGroups[0].Count = 3
	job, _ = h.register(scaled)
	if got := len(h.liveAllocs(job)); got != 2 {
		t.Fatalf("scaled to 3 over 2 racks: %d live", got)
	}
	updated := job.Copy()
	updated.TaskGroups[0].Count = 2
	updated.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "/bin/other"}
	updated.Update = structs.UpdateStrategy{} // all at once, no deployment
	updated.TaskGroups[0].Update = nil
	job, _ = h.register(updated)
	live := h.liveAllocs(job)
	racks := map[string]bool{}
	for _, a := range live {
		if a.Job.Version != job.Version {
			t.Fatalf("alloc %s still at version %d", a.ID, a.Job.Version)
		}
		n, _ := h.store.NodeByID(nil, a.NodeID)
		racks[n.Meta["rack"]] = true
	}
	if len(live) != 2 || len(racks) != 2 {
		t.Fatalf("after a destructive update: %d live on racks %v", len(live), racks)
	}
}

func TestCmpString(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"a", "b", -1}, {"b", "a", 1}, {"a", "a", 0}, {"", "a", -1},
	}
	for _, tc := range cases {
		if got := cmpString(tc.a, tc.b); got != tc.want {
			t.Errorf("cmpString(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestDistinctProperty_FailedReplacementKeepsItsRack checks that when a
// destructive replacement cannot be placed, the old alloc it would have
// replaced counts again toward a job-level distinct_property: the next
// group's replacement must not take its rack. The counts are cached per
// plan generation, so undoing the stop must move the generation on.
func TestDistinctProperty_FailedReplacementKeepsItsRack(t *testing.T) {
	h := newHarness(t)
	rackOf := map[string]string{}
	for _, rack := range []string{"r1", "r2"} {
		n := mockNode()
		n.Meta["rack"] = rack
		h.upsertNode(n)
		rackOf[n.ID] = rack
	}
	j := mockJob("web", 1)
	j.Constraints = []*structs.Constraint{{Operand: structs.ConstraintDistinctProperty, LTarget: "${meta.rack}"}}
	b := j.TaskGroups[0].Copy()
	b.Name = "b"
	j.TaskGroups[0].Name = "a"
	j.TaskGroups = append(j.TaskGroups, b)
	job, _ := h.register(j)
	before := map[string]*structs.Allocation{}
	for _, a := range h.liveAllocs(job) {
		before[a.TaskGroup] = a
	}
	if len(before) != 2 || rackOf[before["a"].NodeID] == rackOf[before["b"].NodeID] {
		t.Fatalf("first placement: %v", before)
	}

	// Group a's new version fits no node; group b's fits anywhere.
	v2 := job.Copy()
	v2.TaskGroups[0].Tasks[0].Resources.MemoryMB = 1 << 30
	v2.TaskGroups[1].Tasks[0].Env = map[string]string{"V": "2"}
	h.register(v2)

	p := h.lastPlan()
	placed, stopped := planned(p)
	if len(placed) != 1 || placed[0].TaskGroup != "b" || len(stopped) != 1 || stopped[0].ID != before["b"].ID {
		t.Fatalf("placed %v stopped %v, want only b replaced", placed, stopped)
	}
	if got, want := rackOf[placed[0].NodeID], rackOf[before["b"].NodeID]; got != want {
		t.Fatalf("b's replacement on rack %s, want %s: rack %s still runs a's old alloc", got, want, got)
	}
}
