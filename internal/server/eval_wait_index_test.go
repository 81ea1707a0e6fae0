package server

import (
	"context"
	"testing"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// TestEvalDequeue_WaitIndexCoversTheJobsPlacements: a remote worker is
// told to wait for every plan result (and alloc update) the leader holds
// for the eval's job, not just the eval's own index, so a lagging
// follower never schedules on a snapshot missing the job's placements.
func TestEvalDequeue_WaitIndexCoversTheJobsPlacements(t *testing.T) {
	p := newPipeline(t, 1, func(eval *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		if _, _, err := pl.SubmitPlan(placeOn(eval, st, "n1", 100, 100)); err != nil {
			return err
		}
		return complete(eval, pl)
	})
	p.addNode("n1", 4000, 4000)
	job := mock.Job("web")
	p.waitStatus(p.register(job), structs.EvalStatusComplete)
	for _, w := range p.srv.workers {
		w.SetPaused(true)
	}
	second := p.register(job.Copy())
	allocs, err := p.srv.State().AllocsByJob(nil, job.Namespace, job.ID, true)
	if err != nil || len(allocs) != 1 {
		t.Fatalf("allocs = %v, %v", allocs, err)
	}
	update := allocs[0].Copy()
	update.ClientStatus = structs.AllocClientStatusRunning
	updated, err := p.srv.raftApply(structs.AllocClientUpdateRequestType, &structs.AllocUpdateRequest{Allocs: []*structs.Allocation{update}})
	if err != nil {
		t.Fatal(err)
	}

	reply, err := p.srv.Eval.Dequeue(context.Background(), &structs.EvalDequeueRequest{Schedulers: []string{structs.JobTypeService}, Timeout: 5e9})
	if err != nil || reply.Eval == nil || reply.Eval.ID != second {
		t.Fatalf("dequeue = %+v, %v; want eval %s", reply, err, second)
	}
	if reply.Eval.ModifyIndex >= updated || reply.WaitIndex != updated {
		t.Fatalf("eval index %d, wait index %d; want the alloc's later index %d", reply.Eval.ModifyIndex, reply.WaitIndex, updated)
	}
}
