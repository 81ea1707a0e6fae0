package server

import (
	"context"
	"errors"

	"github.com/drover-project/drover/internal/structs"
)

// Scale sets a task group's count as a new job version and writes one
// job-scaling eval with it, in one entry. The count must respect the
// group's scaling block, if it has one.
func (e *JobEndpoint) Scale(ctx context.Context, args *structs.JobScaleArgs) (*structs.JobRegisterResponse, error) {
	reply := &structs.JobRegisterResponse{}
	job, err := e.lookup(args.Namespace, args.JobID)
	if err != nil {
		return nil, err
	}
	if args.Group == "" {
		return nil, BadRequest("Target.Group: missing task group name")
	}
	tg := job.LookupTaskGroup(args.Group)
	if tg == nil {
		return nil, NotFound("job %q has no task group %q", job.ID, args.Group)
	}
	if args.Count == nil {
		return nil, BadRequest("Count: missing (scaling events without a count are not supported)")
	}
	if err := checkScaleCount(tg, *args.Count); err != nil {
		return nil, err
	}
	if *args.Count > int64(e.srv.config.JobMaxCount) {
		return nil, BadRequest("Count: must be at most %d (server job_max_count), got %d", e.srv.config.JobMaxCount, *args.Count)
	}
	if job.Stop {
		return nil, BadRequest("job %q is stopped: cannot scale", job.ID)
	}
	scaled := job.Copy()
	scaled.LookupTaskGroup(args.Group).Count = int(*args.Count)
	event := &structs.ScalingEvent{Count: args.Count, PreviousCount: int64(tg.Count), Message: args.Message,
		Meta: args.Meta, Time: e.srv.now().UnixNano()}
	written, err := e.writeWithEval(scaled, structs.EvalTriggerScaling, &structs.ScalingEventEntry{Group: args.Group, Event: event})
	if err != nil {
		return nil, err
	}
	*reply = *written
	return reply, nil
}

func checkScaleCount(tg *structs.TaskGroup, count int64) error {
	if count < 0 {
		return BadRequest("Count: must not be negative, got %d", count)
	}
	if p := tg.Scaling; p != nil && p.Enabled && (count < p.Min || (p.Max > 0 && count > p.Max)) {
		return BadRequest("Count: %d is outside the group's scaling range [%d, %d]", count, p.Min, p.Max)
	}
	return nil
}

// Evaluate forces a new evaluation of a job (as `job eval` does).
func (e *JobEndpoint) Evaluate(ctx context.Context, args *structs.JobEvaluateArgs) (*structs.JobRegisterResponse, error) {
	reply := &structs.JobRegisterResponse{}
	job, err := e.lookup(args.Namespace, args.JobID)
	if err != nil {
		return nil, err
	}
	if job.IsMultiInstanceParent() {
		return nil, BadRequest("job %q is a periodic or parameterized parent: it has nothing to evaluate", job.ID)
	}
	eval := e.srv.newJobEval(job, structs.EvalTriggerJobRegister)
	index, err := e.srv.raftApply(structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: []*structs.Evaluation{eval}})
	if err != nil {
		return nil, err
	}
	reply.EvalID, reply.EvalCreateIndex, reply.JobModifyIndex, reply.Index = eval.ID, index, job.JobModifyIndex, index
	return reply, nil
}

// Validate validates a job without writing anything. An invalid job is
// not an error: the reply lists every problem.
func (e *JobEndpoint) Validate(ctx context.Context, args *structs.JobValidateArgs) (*structs.JobValidateResponse, error) {
	reply := &structs.JobValidateResponse{ValidationErrors: []string{}}
	_, err := validateJob(args.Job)
	var verrs structs.ValidationErrors
	switch {
	case errors.As(err, &verrs):
		for _, v := range verrs {
			reply.ValidationErrors = append(reply.ValidationErrors, v.Field+": "+v.Message)
		}
		reply.Error = verrs.Error()
	case err != nil:
		return nil, err
	}
	return reply, nil
}

// validateJob canonicalizes and validates a copy of a job.
func validateJob(job *structs.Job) (*structs.Job, error) {
	if job == nil {
		return nil, BadRequest("Job: missing job")
	}
	j := job.Copy()
	clearServerOwnedFields(j)
	j.Canonicalize()
	return j, j.Validate()
}

// writeWithEval writes a changed job with one eval of the given trigger.
func (e *JobEndpoint) writeWithEval(job *structs.Job, trigger string, scaling *structs.ScalingEventEntry) (*structs.JobRegisterResponse, error) {
	eval := e.srv.newJobEval(job, trigger)
	req := &structs.JobRegisterRequest{Job: job, Eval: eval, SubmitTime: e.srv.now().UnixNano(), ScalingEvent: scaling}
	if scaling != nil {
		scaling.Event.EvalID = eval.ID
	}
	index, err := e.srv.raftApply(structs.JobRegisterRequestType, req)
	if err != nil {
		return nil, err
	}
	stored, _ := e.srv.State().JobByID(nil, job.Namespace, job.ID)
	reply := &structs.JobRegisterResponse{EvalID: eval.ID, EvalCreateIndex: index, JobModifyIndex: index, WriteMeta: structs.WriteMeta{Index: index}}
	if stored != nil {
		reply.JobModifyIndex = stored.JobModifyIndex
	}
	return reply, nil
}

// lookup returns the job or a 404.
func (e *JobEndpoint) lookup(namespace, jobID string) (*structs.Job, error) {
	if jobID == "" {
		return nil, BadRequest("JobID: missing job ID")
	}
	ns := namespaceOrDefault(namespace)
	job, err := e.srv.State().JobByID(nil, ns, jobID)
	if err != nil {
		return nil, err
	}
	if job == nil {
		return nil, NotFound("job %q not found in namespace %q", jobID, ns)
	}
	return job, nil
}

// Revert registers an earlier version of a job as its newest version.
// With EnforcePriorVersion set, the current version must equal it.
func (e *JobEndpoint) Revert(ctx context.Context, args *structs.JobRevertArgs) (*structs.JobRegisterResponse, error) {
	jobID, version, enforcePrior := args.JobID, args.JobVersion, args.EnforcePriorVersion
	current, err := e.lookup(args.Namespace, jobID)
	if err != nil {
		return nil, err
	}
	if enforcePrior != nil && current.Version != *enforcePrior {
		return nil, BadRequest("EnforcePriorVersion: current version is %d, not %d", current.Version, *enforcePrior)
	}
	if version == current.Version {
		return nil, BadRequest("JobVersion: %d is already the current version", version)
	}
	old, err := e.srv.State().JobByIDAndVersion(nil, current.Namespace, jobID, version)
	if err != nil {
		return nil, err
	}
	if old == nil {
		return nil, NotFound("job %q has no version %d", jobID, version)
	}
	revert := old.Copy()
	clearServerOwnedFields(revert)
	revert.Stop = false
	return e.Register(ctx, &structs.JobRegisterArgs{Job: revert, WriteRequest: args.WriteRequest})
}
