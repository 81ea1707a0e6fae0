package server

import (
	"github.com/drover-project/drover/internal/structs"
)

// AllocEndpoint is the Alloc.* endpoint family.
type AllocEndpoint struct{ srv *Server }

// AllocStopReply tells the caller which eval will move the alloc.
type AllocStopReply struct {
	EvalID string
	Index  uint64
}

// Stop asks for an alloc to be stopped and replaced: it marks the alloc
// for migration and writes one alloc-stop eval of its job, in one entry;
// the scheduler then stops it and places a replacement.
func (e *AllocEndpoint) Stop(allocID string) (*AllocStopReply, error) {
	alloc, err := e.srv.State().AllocByID(nil, allocID)
	if err != nil {
		return nil, err
	}
	if alloc == nil {
		return nil, NotFound("allocation %q not found", allocID)
	}
	job := alloc.Job
	if current, err := e.srv.State().JobByID(nil, alloc.Namespace, alloc.JobID); err == nil && current != nil {
		job = current
	}
	if job == nil {
		return nil, NotFound("job %q of allocation %q not found", alloc.JobID, allocID)
	}
	eval := e.srv.newJobEval(job, structs.EvalTriggerAllocStop)
	migrate := true
	index, err := e.srv.raftApply(structs.AllocUpdateDesiredTransitionType, &structs.AllocUpdateDesiredTransitionRequest{
		Allocs: map[string]*structs.DesiredTransition{allocID: {Migrate: &migrate}},
		Evals:  []*structs.Evaluation{eval},
	})
	if err != nil {
		return nil, err
	}
	return &AllocStopReply{EvalID: eval.ID, Index: index}, nil
}
