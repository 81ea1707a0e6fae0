package server

import (
	"context"
	"io"
	"log/slog"
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/server/insight"
	"github.com/drover-project/drover/internal/server/periodic"
	"github.com/drover-project/drover/internal/state"
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
	reply.Warnings = e.configWarnings(proposed)
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

// The insight answers (package insight): dry runs of the real schedulers
// on a snapshot; nothing is written.

// insightDeps are the answers' clock and seed.
func insightDeps(s *Server) insight.Deps { return insight.Deps{Now: s.now} }

// insightError answers a refused question with 400.
func insightError(err error) error {
	if insight.IsInput(err) {
		return BadRequest("%s", err.Error())
	}
	return err
}

// snapshotJob reads the job from a fresh snapshot, which the answer then
// runs on (404 when it is absent).
func (e *JobEndpoint) snapshotJob(ns, id string) (*state.StateSnapshot, *structs.Job, error) {
	snap := e.srv.State().Snapshot()
	job, err := snap.JobByID(nil, ns, id)
	if err != nil {
		return nil, nil, err
	}
	if job == nil {
		return nil, nil, NotFound("job %q not found", id)
	}
	return snap, job, nil
}

// Explain says why the job's groups are not placed, node by node, and
// what would place them.
func (e *JobEndpoint) Explain(ctx context.Context, args *structs.JobExplainRequest) (*structs.JobExplainResponse, error) {
	snap, job, err := e.snapshotJob(args.RequestNamespace(), args.JobID)
	if err != nil {
		return nil, err
	}
	reply, err := insight.ExplainJob(snap, insightDeps(e.srv), job, insight.ExplainOptions{Group: args.Group, Node: args.Node, Nodes: args.Nodes})
	if err != nil {
		return nil, insightError(err)
	}
	reply.Index = snap.LatestIndex()
	return reply, nil
}

// Headroom says how many more allocs of a group fit, and with each of the
// worst single-node losses.
func (e *JobEndpoint) Headroom(ctx context.Context, args *structs.JobHeadroomRequest) (*structs.HeadroomResponse, error) {
	snap, job, err := e.snapshotJob(args.RequestNamespace(), args.JobID)
	if err != nil {
		return nil, err
	}
	group := args.Group
	if group == "" {
		if len(job.TaskGroups) != 1 {
			return nil, BadRequest("group: job %q has %d task groups: name one", job.ID, len(job.TaskGroups))
		}
		group = job.TaskGroups[0].Name
	}
	reply, err := insight.Headroom(snap, insightDeps(e.srv), job, group)
	if err != nil {
		return nil, insightError(err)
	}
	reply.Index = snap.LatestIndex()
	return reply, nil
}

// Explain says why an eval's job is not placed: the groups it failed to
// place (all of the job's when it failed none).
func (e *EvalEndpoint) Explain(ctx context.Context, args *structs.EvalExplainRequest) (*structs.JobExplainResponse, error) {
	snap := e.srv.State().Snapshot()
	eval, err := snap.EvalByID(nil, args.EvalID)
	if err != nil {
		return nil, err
	}
	if eval == nil {
		return nil, NotFound("evaluation %q not found", args.EvalID)
	}
	job, err := snap.JobByID(nil, eval.Namespace, eval.JobID)
	if err != nil {
		return nil, err
	}
	if job == nil {
		return nil, NotFound("job %q of evaluation %q not found", eval.JobID, eval.ID)
	}
	reply := &structs.JobExplainResponse{JobID: job.ID, Namespace: job.Namespace}
	groups := sortedGroupNames(eval.FailedTGAllocs)
	if len(groups) == 0 {
		groups = []string{""}
	}
	for _, g := range groups {
		if g != "" && job.LookupTaskGroup(g) == nil {
			continue // the job changed since
		}
		one, err := insight.ExplainJob(snap, insightDeps(e.srv), job, insight.ExplainOptions{Group: g, Nodes: args.Nodes})
		if err != nil {
			return nil, insightError(err)
		}
		reply.Groups = append(reply.Groups, one.Groups...)
	}
	reply.EvalID, reply.Index = eval.ID, snap.LatestIndex()
	return reply, nil
}

func sortedGroupNames(m map[string]*structs.AllocMetric) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// WhatIf plays a drain or the loss of nodes on a snapshot with the real
// drainer and schedulers, and says what would move and what would not fit.
func (e *OperatorEndpoint) WhatIf(ctx context.Context, args *structs.WhatIfRequest) (*structs.WhatIfResponse, error) {
	snap := e.srv.State().Snapshot()
	reply, err := insight.WhatIf(snap, insightDeps(e.srv), args)
	if err != nil {
		return nil, insightError(err)
	}
	reply.Index = snap.LatestIndex()
	return reply, nil
}

// Headroom says how many allocs of a hypothetical shape fit.
func (e *OperatorEndpoint) Headroom(ctx context.Context, args *structs.OperatorHeadroomRequest) (*structs.HeadroomResponse, error) {
	snap := e.srv.State().Snapshot()
	reply, err := insight.HeadroomShape(snap, insightDeps(e.srv), args)
	if err != nil {
		return nil, insightError(err)
	}
	reply.Index = snap.LatestIndex()
	return reply, nil
}
