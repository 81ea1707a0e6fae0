package server

import (
	"context"
	"io"
	"log/slog"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/server/periodic"
	"github.com/drover-project/drover/internal/structs"
)

// Plan runs the job's scheduler against a snapshot in which the proposed
// job replaces the stored one, and reports its plan without submitting
// anything: nothing is written.
func (e *JobEndpoint) Plan(ctx context.Context, args *structs.JobPlanArgs) (*structs.JobPlanResponse, error) {
	reply := &structs.JobPlanResponse{}
	job := args.Job
	if job != nil && job.Namespace == "" {
		job = job.Copy()
		job.Namespace = args.Namespace
	}
	proposed, err := validateJob(job)
	if err != nil {
		return nil, BadRequest("invalid job: %w", err)
	}
	if err := e.checkJobAdmission(proposed); err != nil {
		return nil, err
	}
	snap := e.srv.State().Snapshot()
	old, err := snap.JobByID(nil, proposed.Namespace, proposed.ID)
	if err != nil {
		return nil, err
	}
	reply.Old, reply.New, reply.Index = old, proposed, snap.LatestIndex()
	if old != nil {
		reply.JobModifyIndex = old.JobModifyIndex
	}
	if proposed.IsPeriodic() {
		reply.NextPeriodicLaunch, _ = periodic.Next(proposed.Periodic, e.srv.now())
	}
	if proposed.IsMultiInstanceParent() {
		return reply, nil // parents are never scheduled themselves
	}
	factory, ok := e.srv.schedulerFactory(proposed.Type)
	if !ok {
		return nil, BadRequest("Type: no scheduler for job type %q", proposed.Type)
	}
	st := &planState{State: snap, job: asStoredVersion(proposed, old, snap.LatestIndex())}
	capture := &planCapture{}
	eval := e.srv.newJobEval(proposed, structs.EvalTriggerJobRegister)
	eval.AnnotatePlan = true
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := factory(quiet, st, capture).Process(eval); err != nil {
		return nil, err
	}
	if capture.plan != nil {
		reply.Annotations = capture.plan.Annotations
	}
	if capture.final != nil {
		reply.FailedTGAllocs = capture.final.FailedTGAllocs
	}
	reply.CreatedEvals = capture.created
	return reply, nil
}

// asStoredVersion dresses the proposed job as the state store would store
// it: the stored job itself when the spec is unchanged (so the scheduler
// ignores its allocs), else the job's next version.
func asStoredVersion(proposed, old *structs.Job, index uint64) *structs.Job {
	if old != nil && old.SpecEqual(proposed) {
		return old
	}
	j := proposed.Copy()
	next := index + 1
	j.ModifyIndex, j.JobModifyIndex = next, next
	j.CreateIndex = next
	if old != nil {
		j.CreateIndex = old.CreateIndex
		j.Version = old.Version + 1
	}
	return j
}

// planState is a snapshot whose copy of one job is replaced.
type planState struct {
	scheduler.State
	job *structs.Job
}

func (p *planState) JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error) {
	if namespace == p.job.Namespace && id == p.job.ID {
		return p.job, nil
	}
	return p.State.JobByID(ws, namespace, id)
}

// planCapture is a Planner that records instead of acting: every plan
// "commits" in full and no eval is written.
type planCapture struct {
	plan    *structs.Plan
	final   *structs.Evaluation
	created []*structs.Evaluation
}

func (c *planCapture) SubmitPlan(p *structs.Plan) (*structs.PlanResult, scheduler.State, error) {
	c.plan = p
	return &structs.PlanResult{NodeUpdate: p.NodeUpdate, NodeAllocation: p.NodeAllocation,
		NodePreemptions: p.NodePreemptions, Deployment: p.Deployment, DeploymentUpdates: p.DeploymentUpdates}, nil, nil
}

func (c *planCapture) UpdateEval(e *structs.Evaluation) error { c.final = e; return nil }
func (c *planCapture) CreateEval(e *structs.Evaluation) error {
	c.created = append(c.created, e)
	return nil
}
func (c *planCapture) ReblockEval(e *structs.Evaluation) error { return nil }
