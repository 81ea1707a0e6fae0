package server

import (
	"context"
	"testing"

	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// A blocked eval of a job that is stopped or purged is canceled at once:
// it does not wait, blocked, for an unrelated capacity change.
func TestEvalStatus_BlockedToCanceled_JobStoppedOrPurged(t *testing.T) {
	for _, purge := range []bool{false, true} {
		t.Run(map[bool]string{false: "stop", true: "purge"}[purge], func(t *testing.T) {
			s := realServer(t)
			if _, err := s.RegisterNode(e2eNode(1, 1000, 1024)); err != nil {
				t.Fatal(err)
			}
			reply, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: e2eJob("big", 1, 3000, 2048)})
			if err != nil {
				t.Fatal(err)
			}
			done := waitEval(t, s, reply.EvalID, structs.EvalStatusComplete)
			blocked := waitEval(t, s, done.BlockedEval, structs.EvalStatusBlocked)
			if _, err := JobDeregister.Call(context.Background(), s, &structs.JobDeregisterArgs{JobID: "big", Purge: purge}); err != nil {
				t.Fatal(err)
			}
			got := waitEval(t, s, blocked.ID, structs.EvalStatusCanceled)
			if got.StatusDescription != leader.DescJobStopped {
				t.Fatalf("blocked eval canceled with %q", got.StatusDescription)
			}
			if st := s.blocked.Stats(); st.TotalBlocked != 0 {
				t.Fatalf("tracker still holds %d blocked evals", st.TotalBlocked)
			}
		})
	}
}

// lateBlockedEval is the blocked eval a scheduler that read the state
// before its job was stopped writes after the stop.
func lateBlockedEval(id string, job *structs.Job) *structs.Evaluation {
	e := mock.Eval(id, job, structs.EvalTriggerQueuedAllocs)
	e.Status = structs.EvalStatusBlocked
	return e
}

// assertCanceledForStoppedJob checks that a blocked eval was canceled as
// its job's and that the tracker does not hold it.
func assertCanceledForStoppedJob(t *testing.T, p *pipeline, id string) {
	t.Helper()
	got := p.eval(id)
	if got.Status != structs.EvalStatusCanceled || got.StatusDescription != leader.DescJobStopped {
		t.Fatalf("blocked eval of the stopped job is %s, want canceled (%s)", statusOf(got), leader.DescJobStopped)
	}
	if st := p.srv.blocked.Stats(); st.TotalBlocked != 0 {
		t.Fatalf("tracker holds %d blocked evals", st.TotalBlocked)
	}
}

// A blocked eval written after its job was stopped or purged (by a
// scheduler that read the state before) is canceled by the next step: it
// never waits in the tracker.
func TestEvalStatus_BlockedToCanceled_WrittenAfterTheStop(t *testing.T) {
	for _, purge := range []bool{false, true} {
		t.Run(map[bool]string{false: "stop", true: "purge"}[purge], func(t *testing.T) {
			p := newSteppedPipeline(t)
			job := mock.Job("web")
			p.register(job)
			runSteps(t, p.srv)
			if _, err := JobDeregister.Call(context.Background(), p.srv, &structs.JobDeregisterArgs{JobID: job.ID, Purge: purge}); err != nil {
				t.Fatal(err)
			}
			runSteps(t, p.srv)
			if err := p.srv.UpsertEvals([]*structs.Evaluation{lateBlockedEval("late", job)}); err != nil {
				t.Fatal(err)
			}
			runSteps(t, p.srv)
			assertCanceledForStoppedJob(t, p, "late")
		})
	}
}

// A new leader that finds a blocked eval of a stopped job in state
// cancels it instead of tracking it.
func TestEvalStatus_BlockedToCanceled_FoundByANewLeader(t *testing.T) {
	p := newPipeline(t, 1, completeAll)
	job := mock.Job("web")
	p.waitStatus(p.register(job), structs.EvalStatusComplete)
	stop, err := JobDeregister.Call(context.Background(), p.srv, &structs.JobDeregisterArgs{JobID: job.ID})
	if err != nil {
		t.Fatal(err)
	}
	p.waitStatus(stop.EvalID, structs.EvalStatusComplete)
	p.stepLeadership(false)
	if err := p.srv.UpsertEvals([]*structs.Evaluation{lateBlockedEval("late", job)}); err != nil {
		t.Fatal(err)
	}
	p.stepLeadership(true)
	p.waitStatus("late", structs.EvalStatusCanceled)
	assertCanceledForStoppedJob(t, p, "late")
}
