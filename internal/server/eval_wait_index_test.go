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
// follower never schedules on a snapshot missing the job's placements.
func TestEvalDequeue_WaitIndexCoversTheJobsPlacements(t *testing.T) {
	p := newPipeline(t, 1, func(*structs.Evaluation, scheduler.State, scheduler.Planner) error { return nil },
		func(c *Config) { c.EnabledSchedulers = []string{"none"} }) // the eval waits in the broker
	p.addNode("n1", 4000, 4000)
	job := mock.Job("web")
	evalID := p.register(job)
	eval := p.eval(evalID)
	placed := placeOn(eval, p.srv.State(), "n1", 100, 100)
	index, err := p.srv.raftApply(structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Allocs: placed.NodeAllocation["n1"]})
	if err != nil {
		t.Fatal(err)
	}

	reply, err := p.srv.Eval.Dequeue(context.Background(), &structs.EvalDequeueRequest{
		Schedulers: []string{structs.JobTypeService}, Timeout: 5 * time.Second})
	if err != nil || reply.Eval == nil || reply.Eval.ID != evalID {
		t.Fatalf("dequeue = %+v, %v; want eval %s", reply, err, evalID)
	}
	if reply.Eval.ModifyIndex >= index || reply.WaitIndex != index {
		t.Fatalf("eval index %d, wait index %d; want the later placement's index %d", reply.Eval.ModifyIndex, reply.WaitIndex, index)
	}
}
