package server

import (
	"context"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// TestEvalDequeue_WaitIndexCoversTheJobsPlacements: a remote worker is
// told to wait for every plan result (and alloc update) the leader holds
// for the eval's job, not just the eval's own index, so a lagging
// follower never schedules on a snapshot missing the job's placements,
// and no later: writes about other jobs and nodes do not hold it up.
func TestEvalDequeue_WaitIndexCoversTheJobsPlacements(t *testing.T) {
	p := newPipeline(t, 1, func(*structs.Evaluation, scheduler.State, scheduler.Planner) error { return nil },
		func(c *Config) { c.EnabledSchedulers = []string{"none"} }) // the eval waits in the broker
	p.addNode("n1", 4000, 4000)
	job := mock.Job("web")
	evalID := p.register(job)
	eval := p.eval(evalID)
	placed := placeOn(eval, p.srv.State(), "n1", 100, 100)
	index, err := p.srv.raftApply(context.Background(), structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Allocs: placed.NodeAllocation["n1"]})
	if err != nil {
		t.Fatal(err)
	}
	// A later write that has nothing to do with the job: the follower
	// need not wait for it.
	p.addNode("n2", 4000, 4000)
	if latest := p.srv.State().LatestIndex(); latest <= index {
		t.Fatalf("latest index %d, want past the placement's %d", latest, index)
	}

	reply, err := EvalDequeue.Call(context.Background(), p.srv, &structs.EvalDequeueRequest{
		Schedulers: []string{structs.JobTypeService}, Timeout: 5 * time.Second})
	if err != nil || reply.Eval == nil || reply.Eval.ID != evalID {
		t.Fatalf("dequeue = %+v, %v; want eval %s", reply, err, evalID)
	}
	if reply.Eval.ModifyIndex >= index || reply.WaitIndex != index {
		t.Fatalf("eval index %d, wait index %d; want the later placement's index %d", reply.Eval.ModifyIndex, reply.WaitIndex, index)
	}
}
