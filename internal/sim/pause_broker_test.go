package sim

import (
	"context"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// setPauseEvalBroker writes the scheduler configuration with
// PauseEvalBroker set, as `operator scheduler set-config
// -pause-eval-broker` does, and runs the cluster to idle.
func setPauseEvalBroker(t *testing.T, s *Sim, pause bool) {
	t.Helper()
	cur, err := server.OperatorSchedulerGetConfiguration.Call(context.Background(), s.Server(), &structs.GenericRequest{})
	must(t, err)
	cfg := *cur.SchedulerConfig
	cfg.PauseEvalBroker = pause
	_, err = server.OperatorSchedulerSetConfiguration.Call(context.Background(), s.Server(), &structs.SchedulerSetConfigArgs{Config: cfg})
	must(t, err)
	must(t, s.RunUntilIdle())
}

// TestSim_PauseEvalBrokerHoldsEvalsUntilUnpaused: with PauseEvalBroker
// set, no worker gets an eval (Nomad: "the eval broker ... will be
// disabled. This will prevent the scheduler workers from receiving new
// work"); the evals wait, pending, and are scheduled once it is unset.
func TestSim_PauseEvalBrokerHoldsEvalsUntilUnpaused(t *testing.T) {
	s := newTestSim(t, 4)
	_, err := s.AddNode(NodeSpec{Name: "n1"})
	must(t, err)
	setPauseEvalBroker(t, s, true)
	must(t, s.RegisterJob(JobSpec{Name: "web", Count: 2}))
	must(t, s.AdvanceTime(time.Minute))
	must(t, s.LeaderChange()) // the new term applies the configuration too
	h, err := s.History()
	must(t, err)
	if len(h.Allocs) != 0 {
		t.Fatalf("%d allocs placed while the broker is paused\n%s", len(h.Allocs), h)
	}
	var pending int
	for _, e := range h.Evals {
		if e.Job == "web" && e.Status == structs.EvalStatusPending {
			pending++
		}
	}
	if pending != 1 {
		t.Fatalf("%d pending evals of web while paused, want its job-register eval\n%s", pending, h)
	}

	setPauseEvalBroker(t, s, false)
	h, err = s.History()
	must(t, err)
	if len(h.Allocs) != 2 {
		t.Fatalf("%d allocs after unpausing, want 2\n%s", len(h.Allocs), h)
	}
	for _, e := range h.Evals {
		if e.Job == "web" && e.Status != structs.EvalStatusComplete {
			t.Errorf("eval %s of web is %s after unpausing", e.ID, e.Status)
		}
	}
}
