package scheduler

import (
	"fmt"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestCheckOrder(t *testing.T) {
	cases := []struct {
		l, r string
		want [4]bool // <, <=, >, >=
	}{
		{"2", "10", [4]bool{true, true, false, false}}, // numerically, not as strings
		{"10", "2", [4]bool{false, false, true, true}},
		{"2.0", "2", [4]bool{false, true, false, true}},
		{"b", "a", [4]bool{false, false, true, true}},
		{"a", "b", [4]bool{true, true, false, false}},
		{"abc", "abc", [4]bool{false, true, false, true}},
		{"10", "9x", [4]bool{true, true, false, false}}, // one side not a number: as strings
	}
	ops := []string{structs.ConstraintLess, structs.ConstraintLessEqual, structs.ConstraintGreater, structs.ConstraintGreaterEqual}
	for _, tc := range cases {
		for i, op := range ops {
			if got := checkOrder(op, tc.l, tc.r); got != tc.want[i] {
				t.Errorf("%s %s %s: %v, want %v", tc.l, op, tc.r, got, tc.want[i])
			}
		}
	}
}

// TestComputeClass_DriverHealth checks that a driver's detection and
// health, and its presence, are part of the class.
func TestComputeClass_DriverHealth(t *testing.T) {
	class := func(d *structs.DriverInfo) string {
		n := constraintNode()
		n.Drivers = map[string]*structs.DriverInfo{"exec": d}
		return ComputeClass(n)
	}
	classes := map[string]string{}
	for name, d := range map[string]*structs.DriverInfo{
		"nil": nil, "undetected": {}, "detected": {Detected: true},
		"healthy only": {Healthy: true}, "detected and healthy": {Detected: true, Healthy: true},
	} {
		c := class(d)
		if other, dup := classes[c]; dup && !(name == "nil" || other == "nil") {
			t.Fatalf("%s and %s share a class", name, other)
		}
		classes[c] = name
	}
	if class(nil) != class(&structs.DriverInfo{}) {
		t.Fatal("a nil driver should hash as undetected and unhealthy")
	}
}

// TestCandidateMemo checks that candidates are reused while the node
// list is the same shared list, and recomputed otherwise.
func TestCandidateMemo(t *testing.T) {
	dc1, dc2 := mockJob("a", 1), mockJob("b", 1)
	dc2.Datacenters = []string{"dc2"}
	all := []*structs.Node{mockNode(), mockNode()}
	all[1].Datacenter = "dc2"
	m := &candidateMemo{}
	first := m.jobCandidates(dc1, all)
	if len(first.nodes) != 1 || first.nodes[0] != all[0] || first.nodesInPool != 2 || first.nodesAvailable["dc1"] != 1 {
		t.Fatalf("candidates %+v", first)
	}
	if m.jobCandidates(dc1, all) != first {
		t.Fatal("same list, same job: not reused")
	}
	if c := m.jobCandidates(dc2, all); c == first || c.nodes[0] != all[1] {
		t.Fatal("another datacenter got the first job's candidates")
	}
	copied := append([]*structs.Node(nil), all...)
	if m.jobCandidates(dc1, copied) == first {
		t.Fatal("a different list reused the memo")
	}
	shorter := all[:1]
	if m.jobCandidates(dc1, shorter) == m.jobCandidates(dc1, all) {
		t.Fatal("a list sharing the array but shorter reused the memo")
	}
	var empty []*structs.Node
	onEmpty := m.jobCandidates(dc1, empty)
	if again := m.jobCandidates(dc1, empty); again == onEmpty {
		t.Fatal("an empty list was memoized")
	}
	var nilMemo *candidateMemo
	if c := nilMemo.jobCandidates(dc1, all); len(c.nodes) != 1 {
		t.Fatalf("nil memo %+v", c)
	}
}

// TestCandidateMemo_Bounded checks that the memo is emptied once it holds
// maxCandidateEntries entries, and not before.
func TestCandidateMemo_Bounded(t *testing.T) {
	all := []*structs.Node{mockNode()}
	m := &candidateMemo{}
	jobFor := func(i int) *structs.Job {
		j := mockJob("j", 1)
		j.Datacenters = []string{fmt.Sprintf("dc%d", i)}
		return j
	}
	first := m.jobCandidates(jobFor(0), all)
	for i := 1; i < maxCandidateEntries-1; i++ {
		m.jobCandidates(jobFor(i), all)
	}
	if len(m.byJob) != maxCandidateEntries-1 || m.jobCandidates(jobFor(0), all) != first {
		t.Fatalf("%d entries; the first one must still be memoized", len(m.byJob))
	}
	m.jobCandidates(jobFor(maxCandidateEntries), all)
	if len(m.byJob) != maxCandidateEntries {
		t.Fatalf("%d entries, want %d", len(m.byJob), maxCandidateEntries)
	}
	if m.jobCandidates(jobFor(0), all) == first || len(m.byJob) != 1 {
		t.Fatalf("%d entries after the bound was reached", len(m.byJob))
	}
}

// TestHostVolumes checks which nodes satisfy a claim: the named volume,
// writable unless the claim is read-only, or for per_alloc claims one of
// the numbered volumes; and the order claims are checked in.
func TestHostVolumes(t *testing.T) {
	node := func(vols map[string]bool) *structs.Node { // name -> read only
		n := &structs.Node{HostVolumes: map[string]*structs.ClientHostVolumeConfig{}}
		for name, ro := range vols {
			n.HostVolumes[name] = &structs.ClientHostVolumeConfig{ReadOnly: ro}
		}
		return n
	}
	cases := []struct {
		name  string
		claim structs.VolumeRequest
		vols  map[string]bool
		want  bool
	}{
		{"present", structs.VolumeRequest{Source: "data"}, map[string]bool{"data": false}, true},
		{"missing", structs.VolumeRequest{Source: "data"}, map[string]bool{"other": false}, false},
		{"read-only volume, writable claim", structs.VolumeRequest{Source: "data"}, map[string]bool{"data": true}, false},
		{"read-only volume, read-only claim", structs.VolumeRequest{Source: "data", ReadOnly: true}, map[string]bool{"data": true}, true},
		{"per alloc", structs.VolumeRequest{Source: "data", PerAlloc: true}, map[string]bool{"data[0]": false}, true},
		{"per alloc needs a numbered one", structs.VolumeRequest{Source: "data", PerAlloc: true}, map[string]bool{"data": false, "database[0]": false}, false},
		{"per alloc, read-only only", structs.VolumeRequest{Source: "data", PerAlloc: true}, map[string]bool{"data[0]": true}, false},
	}
	for _, tc := range cases {
		claim := tc.claim
		if got := hasHostVolume(node(tc.vols), &claim); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	tg := &structs.TaskGroup{Volumes: map[string]*structs.VolumeRequest{
		"z": {Name: "z", Type: structs.VolumeTypeHost, Source: "zz"},
		"a": {Name: "a", Type: structs.VolumeTypeHost, Source: "aa"},
		"m": {Name: "m", Type: structs.VolumeTypeHost, Source: "mm"},
		"c": {Name: "c", Type: "csi", Source: "cc"},
		"n": nil,
	}}
	claims := hostVolumeClaims(tg)
	if len(claims) != 3 || claims[0].Name != "a" || claims[1].Name != "m" || claims[2].Name != "z" {
		t.Fatalf("claims %+v", claims)
	}
	if ok, reason := hostVolumeFilter(tg).filter(node(map[string]bool{"zz": false})); ok || reason != FilterHostVolumes+": aa" {
		t.Fatalf("filter %v %q: must name the first missing claim by name", ok, reason)
	}
}
