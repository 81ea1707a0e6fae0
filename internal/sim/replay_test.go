package sim

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// placementView is what a placement decides: the alloc's ID, name, node
// and granted resources (ports included).
type placementView struct {
	ID, Name, NodeID, TaskGroup, PreviousAllocation string
	Resources                                       *structs.AllocatedResources
}

func placements(allocs []*structs.Allocation) []byte {
	var out []placementView
	for _, a := range sortedAllocs(map[string][]*structs.Allocation{"": allocs}) {
		out = append(out, placementView{a.ID, a.Name, a.NodeID, a.TaskGroup, a.PreviousAllocation, a.AllocatedResources})
	}
	b, _ := json.MarshalIndent(out, "", " ")
	return b
}

// A replay of a recorded eval from an operator snapshot reproduces its
// plan exactly: the same allocs (IDs, names), on the same nodes, with the
// same resources and ports, also when the cluster moved on after the eval;
// and the same seed gives the same plan byte for byte.
func TestReplay_ReproducesTheRecordedPlan(t *testing.T) {
	for _, later := range []bool{false, true} {
		s, err := New(11, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for _, n := range []NodeSpec{{Name: "a"}, {Name: "b", CPU: 6000}, {Name: "c", MemoryMB: 4096}, {Name: "d"}, {Name: "e"}} {
			if _, err := s.AddNode(n); err != nil {
				t.Fatal(err)
			}
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(s.RegisterJob(JobSpec{Name: "base", Count: 4, CPU: 700, MemoryMB: 900}))
		must(s.RegisterJob(JobSpec{Name: "web", Count: 7, CPU: 400, MemoryMB: 700, DistinctHosts: false}))
		evals, err := s.srv.State().EvalsByJob(nil, structs.DefaultNamespace, "web")
		must(err)
		if len(evals) != 1 {
			t.Fatalf("web evals: %d", len(evals))
		}
		eval := evals[0]
		recorded, err := s.srv.State().AllocsByEval(nil, eval.ID)
		must(err)
		if len(recorded) != 7 {
			t.Fatalf("web placed %d allocs", len(recorded))
		}
		if later {
			must(s.RegisterJob(JobSpec{Name: "after", Count: 5, CPU: 300, MemoryMB: 300}))
			must(s.Scale("base", 2))
		}
		var snap bytes.Buffer
		must(s.srv.WriteSnapshot(&snap))
		r1, err := Replay(bytes.NewReader(snap.Bytes()), eval.ID, ReplayOptions{Seed: 11})
		must(err)
		if len(r1.Plans) != 1 {
			t.Fatalf("plans: %d", len(r1.Plans))
		}
		got, want := placements(sortedAllocs(r1.Plans[0].NodeAllocation)), placements(recorded)
		if !bytes.Equal(got, want) {
			t.Fatalf("later=%v: the replayed plan places\n%s\nthe recorded eval placed\n%s", later, got, want)
		}
		r2, err := Replay(bytes.NewReader(snap.Bytes()), eval.ID, ReplayOptions{Seed: 11})
		must(err)
		j1, err := r1.JSON()
		must(err)
		j2, err := r2.JSON()
		must(err)
		if !bytes.Equal(j1, j2) {
			t.Fatal("two replays with the same seed differ")
		}
		// Another configuration decides differently: spread instead of binpack.
		cfg := structs.DefaultSchedulerConfiguration()
		cfg.SchedulerAlgorithm = structs.SchedulerAlgorithmSpread
		r3, err := Replay(bytes.NewReader(snap.Bytes()), eval.ID, ReplayOptions{Seed: 11, SchedulerConfig: cfg})
		must(err)
		if bytes.Equal(placements(sortedAllocs(r3.Plans[0].NodeAllocation)), want) {
			t.Fatal("spread placed exactly as binpack did: the configuration was not used")
		}
	}
}
