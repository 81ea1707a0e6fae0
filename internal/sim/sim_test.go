package sim

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func newTestSim(t *testing.T, seed int64) *Sim {
	t.Helper()
	s, err := New(seed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// smallCluster runs a short story touching most operations.
func smallCluster(t *testing.T, seed int64) History {
	s := newTestSim(t, seed)
	for _, n := range []string{"n1", "n2", "n3"} {
		_, err := s.AddNode(NodeSpec{Name: n})
		must(t, err)
	}
	must(t, s.RegisterJob(JobSpec{Name: "sys", Type: "system"}))
	must(t, s.RegisterJob(JobSpec{Name: "web", Count: 4, CPU: 500}))
	must(t, s.AdvanceTime(30*time.Second))
	must(t, s.MissHeartbeats("n2"))
	must(t, s.AdvanceTime(40*time.Second))
	must(t, s.Resume("n2"))
	must(t, s.Scale("web", 6))
	must(t, s.FailAlloc("web"))
	must(t, s.AdvanceTime(2*time.Minute))
	h, err := s.History()
	must(t, err)
	return h
}

func TestSim_SameSeedSameHistory(t *testing.T) {
	a := smallCluster(t, 42)
	b := smallCluster(t, 42)
	if d := Diff(a, b); d != "" {
		t.Fatalf("histories differ:\n%s", d)
	}
	if len(a.Evals) == 0 || len(a.Allocs) == 0 {
		t.Fatalf("empty history:\n%s", a)
	}
	t.Logf("\n%s", a)
}

// TestSim_DelayedRaftApply_SameOutcome: with raft applies held back (a
// slow disk or network), the cluster converges to the same history as
// without: workers wait for their snapshot index, nothing is lost.
func TestSim_DelayedRaftApply_SameOutcome(t *testing.T) {
	run := func(delay bool) History {
		s := newTestSim(t, 7)
		for _, n := range []string{"n1", "n2"} {
			_, err := s.AddNode(NodeSpec{Name: n})
			must(t, err)
		}
		// Every entry after the nodes' is delayed: register, plan (with
		// the eval's final status), two client updates, scale, plan, one
		// client update.
		if delay {
			s.DelayRaftApply(7, 20*time.Millisecond)
		}
		must(t, s.RegisterJob(JobSpec{Name: "web", Count: 3, CPU: 500}))
		must(t, s.Scale("web", 5))
		must(t, s.AdvanceTime(30*time.Second))
		if delay && s.DelayedApplies() != 7 {
			t.Fatalf("%d applies delayed, want 7", s.DelayedApplies())
		}
		h, err := s.History()
		must(t, err)
		return h
	}
	if d := Diff(run(false), run(true)); d != "" {
		t.Fatalf("delayed raft applies changed the outcome:\n%s", d)
	}
}

// TestSim_DeterministicRunStepsOneWorker checks that a deterministic
// simulation schedules with one worker whatever the machine: the server's
// own default is a worker per CPU, which would make the stepped order,
// and so the transcript, depend on where it runs.
func TestSim_DeterministicRunStepsOneWorker(t *testing.T) {
	s := newTestSim(t, 1)
	var workers []string
	for _, d := range s.Server().DutySteps() {
		if strings.HasPrefix(d.Name, "worker-") {
			workers = append(workers, d.Name)
		}
	}
	if len(workers) != 1 {
		t.Fatalf("workers stepped: %v, want one", workers)
	}
}

// TestSim_LoggerReceivesTheServerLogs checks that the Logger option is the
// one the server logs to.
func TestSim_LoggerReceivesTheServerLogs(t *testing.T) {
	var buf bytes.Buffer
	s, err := New(1, Options{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	_, err = s.AddNode(NodeSpec{Name: "a"})
	must(t, err)
	must(t, s.RegisterJob(JobSpec{Name: "web"}))
	if buf.Len() == 0 {
		t.Fatal("the logger given in Options received nothing")
	}
}
