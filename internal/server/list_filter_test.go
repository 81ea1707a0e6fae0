package server

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// Node and alloc list filters use the names of Nomad's list stubs (Drain
// is a bool, JobType is the alloc's job's); a job list filter sees the
// whole job, whose Periodic and ParameterizedJob blocks may be nil.
func TestStubFilters(t *testing.T) {
	periodic := &structs.Job{ID: "cron", Type: structs.JobTypeBatch, Periodic: &structs.PeriodicConfig{Enabled: true}}
	service := &structs.Job{ID: "web", Type: structs.JobTypeService}
	draining := &structs.Node{ID: "n1", Status: structs.NodeStatusReady, DrainStrategy: &structs.DrainStrategy{},
		Attributes: map[string]string{"nomad.version": "1.9.0"}}
	ready := &structs.Node{ID: "n2", Status: structs.NodeStatusReady}
	alloc := &structs.Allocation{ID: "a1", ClientStatus: structs.AllocClientStatusRunning, Job: &structs.Job{Type: structs.JobTypeService, Version: 3}}

	wholeJob := func(j *structs.Job) *structs.Job { return j }
	jobs := func(expr string) []bool { return run(t, expr, wholeJob, periodic, service) }
	nodes := func(expr string) []bool { return run(t, expr, nodeStub, draining, ready) }
	allocs := func(expr string) []bool { return run(t, expr, allocStub, alloc) }
	for _, tc := range []struct {
		name string
		got  []bool
		want []bool
	}{
		{"job Periodic is a block", jobs(`Periodic is not nil`), []bool{true, false}},
		{"job ParameterizedJob is a block", jobs(`ParameterizedJob is not nil`), []bool{false, false}},
		{"job type", jobs(`Type == "service"`), []bool{false, true}},
		{"node Drain is a bool", nodes(`Drain == false and Status == "ready"`), []bool{false, true}},
		{"node Version from attributes", nodes(`Version == "1.9.0"`), []bool{true, false}},
		{"alloc JobType and JobVersion", allocs(`JobType == "service" and JobVersion == 3 and ClientStatus == "running"`), []bool{true}},
		{"no filter keeps all", jobs(``), []bool{true, true}},
	} {
		if len(tc.got) != len(tc.want) {
			t.Fatalf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
		for i := range tc.got {
			if tc.got[i] != tc.want[i] {
				t.Fatalf("%s: got %v, want %v", tc.name, tc.got, tc.want)
			}
		}
	}
	if _, err := stubFilter(&QueryOptions{Filter: `Drain ==`}, nodeStub); ErrorCode(err) != 400 {
		t.Fatalf("malformed filter: %v, want a 400", err)
	}
}

func run[T, V any](t *testing.T, expr string, view func(*T) V, objs ...*T) []bool {
	t.Helper()
	match, err := stubFilter(&QueryOptions{Filter: expr}, view)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	var out []bool
	for _, o := range objs {
		ok := true
		if match != nil {
			if ok, err = match(o); err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
		}
		out = append(out, ok)
	}
	return out
}
