package server

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

func failedEval(id string) *structs.Evaluation {
	return &structs.Evaluation{ID: id, Namespace: "default", Priority: 50, Type: structs.JobTypeService,
		TriggeredBy: structs.EvalTriggerJobRegister, JobID: "web", Status: structs.EvalStatusFailed}
}

// followUpOf returns the failed-follow-up eval the failed eval points at.
func followUpOf(t *testing.T, p *pipeline, id string) *structs.Evaluation {
	t.Helper()
	old := p.eval(id)
	if old == nil || old.NextEval == "" {
		t.Fatalf("failed eval %s has no follow-up: %+v", id, old)
	}
	return p.eval(old.NextEval)
}

// Each failed eval's follow-up waits the base delay plus a random jitter
// below FailedFollowUpJitter, so a burst of failures does not come back
// as a burst: two evals failed at once get different delays.
func TestFailedFollowUp_DelayIsBasePlusJitter(t *testing.T) {
	p := newSteppedPipeline(t, func(c *Config) {
		c.FailedFollowUpBaseDelay = time.Minute
		c.FailedFollowUpJitter = time.Hour
	})
	if err := p.srv.UpsertEvals([]*structs.Evaluation{failedEval("failed-1"), failedEval("failed-2")}); err != nil {
		t.Fatal(err)
	}
	runSteps(t, p.srv)
	now := p.clk.Now()
	var delays []time.Duration
	for _, id := range []string{"failed-1", "failed-2"} {
		d := followUpOf(t, p, id).WaitUntil.Sub(now)
		if d < time.Minute || d >= time.Minute+time.Hour {
			t.Fatalf("follow-up of %s waits %s, want 1m plus a jitter below 1h", id, d)
		}
		delays = append(delays, d)
	}
	if delays[0] == delays[1] {
		t.Fatalf("both follow-ups wait %s: no jitter", delays[0])
	}
}

// A failed eval queued for its follow-up again after it got one (a new
// leader restoring a copy read before the write) gets no second one.
func TestFailedFollowUp_OnlyOnce(t *testing.T) {
	p := newSteppedPipeline(t)
	stale := failedEval("failed-1")
	if err := p.srv.UpsertEvals([]*structs.Evaluation{stale}); err != nil {
		t.Fatal(err)
	}
	runSteps(t, p.srv)
	first := followUpOf(t, p, "failed-1")
	p.srv.leader.Sink().EvalsWritten([]*structs.Evaluation{stale}, "")
	runSteps(t, p.srv)
	if got := followUpOf(t, p, "failed-1"); got.ID != first.ID {
		t.Fatalf("a second follow-up %s replaced %s", got.ID, first.ID)
	}
	n := 0
	for _, e := range p.evalsOf("web") {
		if e.TriggeredBy == structs.EvalTriggerFailedFollowUp {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d failed-follow-up evals, want 1", n)
	}
}
