package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/sim"
	"github.com/drover-project/drover/internal/structs"
)

// `drover sim replay` on a saved snapshot prints the recorded eval's plan,
// the same bytes on every run with the same seed; a scheduler
// configuration file with an unknown field is refused, naming it.
func TestSimReplay_PrintsThePlanDeterministically(t *testing.T) {
	s, err := sim.New(5, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, n := range []string{"a", "b", "c"} {
		if _, err := s.AddNode(sim.NodeSpec{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RegisterJob(sim.JobSpec{Name: "web", Count: 4, CPU: 900}); err != nil {
		t.Fatal(err)
	}
	evals, err := s.Server().State().EvalsByJob(nil, structs.DefaultNamespace, "web")
	if err != nil || len(evals) != 1 {
		t.Fatalf("evals: %v %v", evals, err)
	}
	allocs, err := s.Server().State().AllocsByEval(nil, evals[0].ID)
	if err != nil || len(allocs) != 4 {
		t.Fatalf("allocs: %d %v", len(allocs), err)
	}
	var snap bytes.Buffer
	if err := s.Server().WriteSnapshot(&snap); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "state.snap")
	if err := os.WriteFile(file, snap.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	replay := func(extra ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := runSim(append([]string{"replay", "-snapshot", file, "-eval", evals[0].ID, "-seed", "5"}, extra...), &out, &errOut)
		return out.String(), errOut.String(), code
	}
	human, errs, code := replay()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, a := range allocs {
		if !strings.Contains(human, a.ID) || !strings.Contains(human, "node "+a.NodeID) {
			t.Fatalf("the replay does not place %s on %s as recorded:\n%s", a.ID, a.NodeID, human)
		}
	}
	j1, _, _ := replay("-json")
	j2, _, _ := replay("-json")
	if j1 != j2 || !strings.Contains(j1, `"Plans"`) {
		t.Fatalf("two replays differ or print no plans:\n%s", j1)
	}
	cfg := filepath.Join(dir, "cfg.json")
	if err := os.WriteFile(cfg, []byte(`{"SchedulerAlgorithm":"spread","Bogus":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := replay("-scheduler-config", cfg); code != 1 || !strings.Contains(errs, `unknown field "Bogus"`) {
		t.Fatalf("bad config: exit %d: %s", code, errs)
	}
}
