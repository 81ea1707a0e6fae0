package server

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

// Each plan an eval's worker submits is named "<eval>/plan-N", counting
// from 1 in submission order; the eval's timeline names the plan of each
// applying step.
func TestWorker_NamesAnEvalsPlansInSubmissionOrder(t *testing.T) {
	p := newSteppedPipeline(t)
	p.addNode("n1", 4000, 8192)
	p.addNode("n2", 4000, 8192)
	p.setScript(func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		for _, node := range []string{"n1", "n2"} {
			if _, _, err := pl.SubmitPlan(placeOn(e, st, node, 500, 256)); err != nil {
				return err
			}
		}
		return complete(e, pl)
	})
	id := p.register(testJob("web"))
	runSteps(t, p.srv)
	e := p.eval(id)
	if e.Status != structs.EvalStatusComplete {
		t.Fatalf("eval is %s, want complete", e.Status)
	}
	var plans []string
	for _, step := range e.Timeline {
		if step.Status == structs.EvalQuasiStatusApplying {
			plans = append(plans, step.PlanID)
		}
	}
	if want := []string{id + "/plan-1", id + "/plan-2"}; !slices.Equal(plans, want) {
		t.Fatalf("applying steps name plans %q, want %q", plans, want)
	}
}

// A follow-up eval the scheduler creates without a create time gets the
// server's clock; one that carries its own keeps it. Both get the clock
// as their modify time.
func TestWorker_CreateEvalStampsOnlyAMissingCreateTime(t *testing.T) {
	p := newSteppedPipeline(t)
	const given = int64(1_600_000_000_000_000_000)
	p.setScript(func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		if e.TriggeredBy == structs.EvalTriggerJobRegister {
			fresh := finishEval("follow-up-fresh")
			fresh.JobID, fresh.PreviousEval = e.JobID, e.ID
			fresh.TriggeredBy = structs.EvalTriggerRollingUpdate
			dated := fresh.Copy()
			dated.ID, dated.CreateTime = "follow-up-dated", given
			for _, f := range []*structs.Evaluation{fresh, dated} {
				if err := pl.CreateEval(f); err != nil {
					return err
				}
			}
		}
		return complete(e, pl)
	})
	p.register(testJob("web"))
	now := p.clk.Now().UnixNano()
	runSteps(t, p.srv)
	fresh, dated := p.eval("follow-up-fresh"), p.eval("follow-up-dated")
	if fresh == nil || dated == nil {
		t.Fatalf("follow-ups not written: %v, %v", fresh, dated)
	}
	if fresh.CreateTime != now || fresh.ModifyTime != now {
		t.Errorf("follow-up without a create time: create %d modify %d, want both %d", fresh.CreateTime, fresh.ModifyTime, now)
	}
	if dated.CreateTime != given || dated.ModifyTime != now {
		t.Errorf("follow-up with a create time: create %d modify %d, want %d and %d", dated.CreateTime, dated.ModifyTime, given, now)
	}
}

// A paused worker stops waiting for its resume once its context is
// canceled (leadership lost, shutdown): a worker paused at that moment
// must not hang the server's shutdown.
func TestWorker_PausedWaitEndsWithItsContext(t *testing.T) {
	p := newSteppedPipeline(t)
	w := newWorker(p.srv, "paused-test")
	w.SetPaused(true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan struct{})
	go func() {
		w.waitUnpaused(ctx)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // a failure detector, not a wait for progress
		w.SetPaused(false) // release the goroutine
		t.Fatal("a paused worker with a canceled context kept waiting")
	}
}
