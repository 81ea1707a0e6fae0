package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// simWithNode is a fresh simulation (seed 1) with one node.
func simWithNode(t *testing.T) *Sim {
	t.Helper()
	s := newTestSim(t, 1)
	_, err := s.AddNode(NodeSpec{Name: "a"})
	must(t, err)
	return s
}

// TestRunUntilIdle_GivesUpAfterItsSweeps checks the guard against a
// cluster that never stops reporting: RunUntilIdle errors once its bound
// of node sweeps has passed with every sweep still reporting, and not
// before. Registering a job on one node takes two sweeps: the first
// reports the placed alloc running, the second finds nothing to report.
func TestRunUntilIdle_GivesUpAfterItsSweeps(t *testing.T) {
	s := simWithNode(t)
	s.bounds.sweeps = 1
	err := s.RegisterJob(JobSpec{Name: "web"})
	if err == nil || !strings.Contains(err.Error(), "still busy after 1 node sweeps") {
		t.Fatalf("register with 1 sweep allowed: %v, want the still-busy error", err)
	}

	s = simWithNode(t)
	s.bounds.sweeps = 2
	must(t, s.RegisterJob(JobSpec{Name: "web"}))
}

// TestSettle_GivesUpAfterItsSteps checks the same guard for the duty
// passes of one settle: allowed exactly as many passes as a job
// registration makes progress in, settle errors (it needs one more pass to
// see that nothing progresses); allowed one more, it succeeds. The passes
// are counted on a twin simulation (same seed, same steps).
func TestSettle_GivesUpAfterItsSteps(t *testing.T) {
	twin := simWithNode(t)
	if _, err := server.JobRegister.Call(context.Background(), twin.srv, &structs.JobRegisterArgs{Job: JobSpec{Name: "web"}.Job()}); err != nil {
		t.Fatal(err)
	}
	progressing := 0
	for twin.srv.StepDuties() {
		progressing++
	}
	if progressing == 0 {
		t.Fatal("registering a job made no duty progress")
	}

	s := simWithNode(t)
	s.bounds.steps = progressing
	err := s.RegisterJob(JobSpec{Name: "web"})
	if err == nil || !strings.Contains(err.Error(), "duties still progressing") {
		t.Fatalf("register with %d passes allowed: %v, want the still-progressing error", progressing, err)
	}

	s = simWithNode(t)
	s.bounds.steps = progressing + 1
	must(t, s.RegisterJob(JobSpec{Name: "web"}))
}

// TestSweepNodes_EveryNodeReportsInOneSweep checks that one sweep has
// every node report, not only up to the first that sent something: a job
// placed on two nodes is reported in the first sweep, so registering it
// takes two sweeps, as on one node.
func TestSweepNodes_EveryNodeReportsInOneSweep(t *testing.T) {
	s := simWithNode(t)
	_, err := s.AddNode(NodeSpec{Name: "b"})
	must(t, err)
	s.bounds.sweeps = 2
	must(t, s.RegisterJob(JobSpec{Name: "web", Count: 2, DistinctHosts: true}))
	h, err := s.History()
	must(t, err)
	if len(h.Allocs) != 2 || h.Allocs[0].Node == h.Allocs[1].Node {
		t.Fatalf("want one alloc on each node:\n%s", h)
	}
}
