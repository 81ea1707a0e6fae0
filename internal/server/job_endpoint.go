package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/drover-project/drover/internal/server/periodic"
	"github.com/drover-project/drover/internal/structs"
)

// JobEndpoint is the Job.* endpoint family.
type JobEndpoint struct{ srv *Server }

// Register validates a job and writes it together with its job-register
// evaluation in one raft entry. Periodic and parameterized parents get no
// evaluation: they only launch children.
func (e *JobEndpoint) Register(ctx context.Context, args *structs.JobRegisterArgs) (*structs.JobRegisterResponse, error) {
	reply := &structs.JobRegisterResponse{}
	if args.Job == nil {
		return nil, BadRequest("Job: missing job")
	}
	job := args.Job.Copy()
	if job.Namespace == "" {
		job.Namespace = args.Namespace
	}
	clearServerOwnedFields(job)
	job.Canonicalize()
	if err := job.Validate(); err != nil {
		return nil, BadRequest("invalid job: %w", err)
	}
	if err := e.checkJobAdmission(job); err != nil {
		return nil, err
	}
	if job.IsPeriodic() {
		if err := periodic.Validate(job.Periodic); err != nil {
			return nil, BadRequest("invalid job: %w", err)
		}
	}
	if err := e.checkEnforceIndex(job, args); err != nil {
		return nil, err
	}
	if err := checkSubmission(args.Submission); err != nil {
		return nil, err
	}
	reply.Warnings = e.configWarnings(job)
	now := e.srv.now()
	req := &structs.JobRegisterRequest{Job: job, SubmitTime: now.UnixNano(), Submission: args.Submission}
	if !job.IsMultiInstanceParent() {
		req.Eval = e.srv.newJobEval(job, structs.EvalTriggerJobRegister)
	}
	index, err := e.srv.raftApply(ctx, structs.JobRegisterRequestType, req)
	if err != nil {
		return nil, err
	}
	reply.Index, reply.JobModifyIndex = index, index
	stored, err := e.srv.State().JobByID(nil, job.Namespace, job.ID)
	if err != nil {
		return nil, fmt.Errorf("job %s written at index %d, but reading it back failed: %w", job.ID, index, err)
	}
	if stored != nil {
		reply.JobModifyIndex = stored.JobModifyIndex
	}
	if req.Eval != nil {
		reply.EvalID, reply.EvalCreateIndex = req.Eval.ID, index
	}
	return reply, nil
}

// configWarnings says what the job asks that the cluster's scheduler
// configuration will not honour, as Nomad warns at register and plan:
// memory_max while memory oversubscription is off (the scheduler then
// reserves and the client limits at memory only).
func (e *JobEndpoint) configWarnings(job *structs.Job) string {
	cfg, _ := e.srv.State().SchedulerConfig(nil)
	if cfg == nil {
		cfg = structs.DefaultSchedulerConfiguration()
	}
	if cfg.MemoryOversubscriptionEnabled {
		return ""
	}
	var ws []string
	for _, tg := range job.TaskGroups {
		for _, t := range tg.Tasks {
			if t.Resources != nil && t.Resources.MemoryMaxMB > 0 {
				ws = append(ws, fmt.Sprintf("Task %q: memory_max is ignored while memory oversubscription is off (drover operator scheduler set-config -memory-oversubscription=true turns it on)", tg.Name+"."+t.Name))
			}
		}
	}
	return strings.Join(ws, "\n")
}

func (e *JobEndpoint) checkEnforceIndex(job *structs.Job, args *structs.JobRegisterArgs) error {
	if !args.EnforceIndex {
		return nil
	}
	existing, err := e.srv.State().JobByID(nil, job.Namespace, job.ID)
	if err != nil {
		return err
	}
	var current uint64
	if existing != nil {
		current = existing.JobModifyIndex
	}
	if current != args.JobModifyIndex {
		return BadRequest("EnforceIndex: job modify index %d does not match the current %d", args.JobModifyIndex, current)
	}
	return nil
}

// Deregister stops (or purges) a job and writes its job-deregister
// evaluation in one raft entry, so the scheduler stops its allocations.
func (e *JobEndpoint) Deregister(ctx context.Context, args *structs.JobDeregisterArgs) (*structs.JobDeregisterResponse, error) {
	reply := &structs.JobDeregisterResponse{}
	if args.JobID == "" {
		return nil, BadRequest("JobID: missing job ID")
	}
	ns := namespaceOrDefault(args.Namespace)
	job, err := e.srv.State().JobByID(nil, ns, args.JobID)
	if err != nil {
		return nil, err
	}
	if job == nil {
		return nil, NotFound("job %q not found in namespace %q", args.JobID, ns)
	}
	if p := args.EvalPriority; p != 0 && (p < structs.JobMinPriority || p > structs.JobMaxPriority) {
		return nil, BadRequest("eval_priority: must be between %d and %d, got %d", structs.JobMinPriority, structs.JobMaxPriority, p)
	}
	req := &structs.JobDeregisterRequest{Namespace: ns, JobID: job.ID, Purge: args.Purge, SubmitTime: e.srv.now().UnixNano(),
		NoShutdownDelay: args.NoShutdownDelay}
	if !job.IsMultiInstanceParent() {
		req.Eval = e.srv.newJobEval(job, structs.EvalTriggerJobDeregister)
		if args.EvalPriority != 0 {
			req.Eval.Priority = args.EvalPriority
		}
	}
	index, err := e.srv.raftApply(ctx, structs.JobDeregisterRequestType, req)
	if err != nil {
		return nil, err
	}
	reply.Index, reply.JobModifyIndex = index, index
	if req.Eval != nil {
		reply.EvalID, reply.EvalCreateIndex = req.Eval.ID, index
	}
	return reply, nil
}

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
	if err := e.checkNoActiveDeployment(job); err != nil {
		return nil, err
	}
	scaled := job.Copy()
	scaled.LookupTaskGroup(args.Group).Count = int(*args.Count)
	// A new version: stable only once its deployment succeeds, and the
	// current version's tag stays with it.
	scaled.Stable, scaled.VersionTag = false, nil
	event := &structs.ScalingEvent{Count: args.Count, PreviousCount: int64(tg.Count), Message: args.Message,
		Meta: args.Meta, Time: e.srv.now().UnixNano()}
	written, err := e.writeWithEval(ctx, scaled, structs.EvalTriggerScaling, &structs.ScalingEventEntry{Group: args.Group, Event: event})
	if err != nil {
		return nil, err
	}
	*reply = *written
	return reply, nil
}

// checkNoActiveDeployment refuses a scale while the job's latest
// deployment (of this job, not of an earlier job of the same ID) still
// runs, as Nomad does: the new version would cancel the rollout.
func (e *JobEndpoint) checkNoActiveDeployment(job *structs.Job) error {
	d, err := e.srv.State().LatestDeploymentByJobID(nil, job.Namespace, job.ID)
	if err != nil {
		return err
	}
	if d != nil && d.Active() && d.JobCreateIndex == job.CreateIndex {
		return BadRequest("job scaling blocked due to active deployment %s (job version %d, %s)", d.ID, d.JobVersion, d.Status)
	}
	return nil
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
	index, err := e.srv.raftApply(ctx, structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: []*structs.Evaluation{eval}})
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
func (e *JobEndpoint) writeWithEval(ctx context.Context, job *structs.Job, trigger string, scaling *structs.ScalingEventEntry) (*structs.JobRegisterResponse, error) {
	eval := e.srv.newJobEval(job, trigger)
	req := &structs.JobRegisterRequest{Job: job, Eval: eval, SubmitTime: e.srv.now().UnixNano(), ScalingEvent: scaling}
	if scaling != nil {
		scaling.Event.EvalID = eval.ID
	}
	index, err := e.srv.raftApply(ctx, structs.JobRegisterRequestType, req)
	if err != nil {
		return nil, err
	}
	stored, err := e.srv.State().JobByID(nil, job.Namespace, job.ID)
	if err != nil {
		return nil, fmt.Errorf("job %s written at index %d, but reading it back failed: %w", job.ID, index, err)
	}
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

// MaxDispatchPayload bounds a dispatch payload (Nomad's limit).
const MaxDispatchPayload = 16 * 1024

// Dispatch launches a child of a parameterized job with a payload and
// meta, checked against the parent's parameterized block, and registers
// it with its job-register eval in one entry.
func (e *JobEndpoint) Dispatch(ctx context.Context, args *structs.JobDispatchArgs) (*structs.JobDispatchResponse, error) {
	reply := &structs.JobDispatchResponse{}
	parent, err := e.lookup(args.Namespace, args.JobID)
	if err != nil {
		return nil, err
	}
	if !parent.IsParameterized() {
		return nil, BadRequest("job %q is not a parameterized job", parent.ID)
	}
	if parent.Stop {
		return nil, BadRequest("job %q is stopped", parent.ID)
	}
	if err := checkDispatch(parent.ParameterizedJob, args); err != nil {
		return nil, err
	}
	child := e.dispatchedChild(parent, args)
	written, err := e.writeWithEval(ctx, child, structs.EvalTriggerJobRegister, nil)
	if err != nil {
		return nil, err
	}
	reply.DispatchedJobID, reply.EvalID, reply.EvalCreateIndex = child.ID, written.EvalID, written.EvalCreateIndex
	reply.JobCreateIndex, reply.Index = written.Index, written.Index
	return reply, nil
}

// checkDispatch enforces the payload mode and the meta keys.
func checkDispatch(p *structs.ParameterizedJobConfig, args *structs.JobDispatchArgs) error {
	switch {
	case len(args.Payload) > MaxDispatchPayload:
		return BadRequest("Payload: %d bytes exceeds the %d byte limit", len(args.Payload), MaxDispatchPayload)
	case p.Payload == structs.DispatchPayloadForbidden && len(args.Payload) > 0:
		return BadRequest("Payload: the job forbids a payload")
	case p.Payload == structs.DispatchPayloadRequired && len(args.Payload) == 0:
		return BadRequest("Payload: the job requires a payload")
	}
	for _, k := range p.MetaRequired {
		if _, ok := args.Meta[k]; !ok {
			return BadRequest("Meta: required key %q is missing", k)
		}
	}
	for k := range args.Meta {
		if !slices.Contains(p.MetaRequired, k) && !slices.Contains(p.MetaOptional, k) {
			return BadRequest("Meta: key %q is neither required nor optional for this job", k)
		}
	}
	if args.Priority != 0 && (args.Priority < structs.JobMinPriority || args.Priority > structs.JobMaxPriority) {
		return BadRequest("Priority: %d is outside [%d, %d]", args.Priority, structs.JobMinPriority, structs.JobMaxPriority)
	}
	return nil
}

// dispatchedChild derives the child: parent/dispatch-<unix>-<random>.
func (e *JobEndpoint) dispatchedChild(parent *structs.Job, args *structs.JobDispatchArgs) *structs.Job {
	c := parent.Copy()
	clearServerOwnedFields(c)
	now := e.srv.now()
	prefix := parent.ID
	if args.IDPrefix != "" {
		prefix += "/" + args.IDPrefix
	}
	c.ID = fmt.Sprintf("%s/dispatch-%d-%s", prefix, now.Unix(), e.srv.config.NewID()[:8])
	c.Name, c.ParentID, c.Dispatched, c.Payload = c.ID, parent.ID, true, args.Payload
	if args.Priority != 0 {
		c.Priority = args.Priority
	}
	if len(args.Meta) > 0 && c.Meta == nil {
		c.Meta = map[string]string{}
	}
	for k, v := range args.Meta {
		c.Meta[k] = v
	}
	return c
}

// PeriodicForce launches a periodic job now, as `job periodic force` does.
func (e *JobEndpoint) PeriodicForce(ctx context.Context, args *structs.JobPeriodicForceArgs) (*structs.JobPeriodicForceResponse, error) {
	reply := &structs.JobPeriodicForceResponse{}
	job, err := e.lookup(args.Namespace, args.JobID)
	if err != nil {
		return nil, err
	}
	if !job.IsPeriodic() {
		return nil, BadRequest("job %q is not periodic", job.ID)
	}
	// As in Nomad, a forced launch ignores prohibit_overlap: only the
	// dispatcher's scheduled launches wait for a running child.
	launched, err := e.srv.leader.ForcePeriodic(job, e.srv.now())
	if err != nil {
		return nil, err
	}
	if launched == nil {
		// Drover differs on purpose: Nomad re-registers the child of the
		// same second (its ID is the launch's Unix second); Drover refuses.
		return nil, BadRequest("job %q was not launched: a child was launched this second", job.ID)
	}
	reply.EvalID, reply.EvalCreateIndex, reply.Index = launched.EvalID, launched.EvalCreateIndex, launched.Index
	return reply, nil
}

// clearServerOwnedFields drops what a client may send but only the server
// decides: versions, indexes, status and submit time.
func clearServerOwnedFields(j *structs.Job) {
	j.Status, j.StatusDescription, j.Stable, j.VersionTag = "", "", false, nil
	j.Version, j.SubmitTime = 0, 0
	j.CreateIndex, j.ModifyIndex, j.JobModifyIndex = 0, 0, 0
}
