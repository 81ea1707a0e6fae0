package server

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// The pointer rules of docs/design.md, each produced by the built-in
// schedulers and the real leader components (no scripted scheduler):
// breaking the scheduler's or the reaper's pointer code fails these.

// max-plan-attempts: new.PreviousEval = old.ID, old.BlockedEval = new.ID;
// then failed-follow-up: new.PreviousEval = old.ID, old.NextEval = new.ID;
// and the leader's retry of the plan-failed blocked eval completes it
// once plans are accepted again.
func TestPointers_RealScheduler_MaxPlanAttemptsAndFailedFollowUp(t *testing.T) {
	var rejecting atomic.Bool
	rejecting.Store(true)
	p := newRealPipeline(t, func(c *Config) {
		c.PlanRejectHook = func(plan *structs.Plan) []string {
			if !rejecting.Load() || plan.Job == nil || plan.Job.ID != "web" {
				return nil
			}
			var nodes []string
			for id := range plan.NodeAllocation {
				nodes = append(nodes, id)
			}
			return nodes
		}
	})
	node := p.clientRegister(1)
	evalID := p.register(e2eJob("web", 1, 100, 64))
	old := p.waitStatus(evalID, structs.EvalStatusFailed)
	if old.BlockedEval == "" {
		t.Fatal("failed eval has no BlockedEval")
	}
	blocked := p.eval(old.BlockedEval)
	if blocked.TriggeredBy != structs.EvalTriggerMaxPlans || blocked.Status != structs.EvalStatusBlocked || blocked.PreviousEval != old.ID {
		t.Fatalf("blocked eval %s %s previous %q", blocked.TriggeredBy, blocked.Status, blocked.PreviousEval)
	}
	var followUp *structs.Evaluation
	waitFor(t, func() bool {
		old = p.eval(evalID)
		if old.NextEval == "" {
			return false
		}
		followUp = p.eval(old.NextEval)
		return followUp != nil
	})
	if followUp.TriggeredBy != structs.EvalTriggerFailedFollowUp || followUp.PreviousEval != old.ID || followUp.WaitUntil.IsZero() {
		t.Fatalf("failed-follow-up %s previous %q wait %v", followUp.TriggeredBy, followUp.PreviousEval, followUp.WaitUntil)
	}
	if n := len(p.evalsWithTrigger("web", structs.EvalTriggerMaxPlans)); n != 1 {
		t.Fatalf("%d max-plan-attempts evals, want 1", n)
	}
	// Plans are accepted again: the leader retries the plan-failed
	// blocked eval, the delayed follow-up runs, and the job is placed.
	// Whichever of the two runs second finds nothing left to do (a no-op,
	// canceled); the blocked eval does not stay blocked.
	rejecting.Store(false)
	p.advanceKeeping(p.srv.config.UnblockFailedInterval+5*time.Second, []*structs.Node{node}, nil)
	waitFor(t, func() bool {
		return p.eval(blocked.ID).TerminalStatus() && p.eval(followUp.ID).TerminalStatus() &&
			len(liveAllocs(t, p.srv, "web")) == 1
	})
}

// rolling-update (system jobs): new.PreviousEval = old.ID, old.NextEval =
// new.ID, delayed by the stagger.
func TestPointers_RealScheduler_RollingUpdate(t *testing.T) {
	p := newRealPipeline(t)
	nodes := []*structs.Node{p.clientRegister(1), p.clientRegister(2)}
	job := e2eJob("agent", 1, 100, 64)
	job.Type = structs.JobTypeSystem
	job.Update = structs.UpdateStrategy{MaxParallel: 1, Stagger: 30 * time.Second}
	p.waitStatus(p.register(job), structs.EvalStatusComplete)
	v1 := job.Copy()
	v1.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "/bin/true", "v": "2"}
	old := p.waitStatus(p.register(v1), structs.EvalStatusComplete)
	if old.NextEval == "" {
		t.Fatal("rolling step has no NextEval")
	}
	next := p.eval(old.NextEval)
	if next.TriggeredBy != structs.EvalTriggerRollingUpdate || next.PreviousEval != old.ID ||
		!next.WaitUntil.Equal(p.clk.Now().Add(30*time.Second)) {
		t.Fatalf("rolling eval %s previous %q wait %v", next.TriggeredBy, next.PreviousEval, next.WaitUntil)
	}
	if old.BlockedEval != "" {
		t.Fatalf("rolling step also set BlockedEval %q", old.BlockedEval)
	}
	p.advanceKeeping(35*time.Second, nodes, nil)
	p.waitStatus(next.ID, structs.EvalStatusComplete)
	waitFor(t, func() bool {
		live := liveAllocs(t, p.srv, "agent")
		return len(live) == 2 && live[0].Job.Version == 1 && live[1].Job.Version == 1
	})
}
