package server

import (
	"context"

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
	if err := e.srv.checkJobAdmission(job); err != nil {
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
	now := e.srv.now()
	req := &structs.JobRegisterRequest{Job: job, SubmitTime: now.UnixNano(), Submission: args.Submission}
	if !job.IsMultiInstanceParent() {
		req.Eval = e.srv.newJobEval(job, structs.EvalTriggerJobRegister)
	}
	index, err := e.srv.raftApply(structs.JobRegisterRequestType, req)
	if err != nil {
		return nil, err
	}
	reply.Index, reply.JobModifyIndex = index, index
	if stored, err := e.srv.State().JobByID(nil, job.Namespace, job.ID); err == nil && stored != nil {
		reply.JobModifyIndex = stored.JobModifyIndex
	}
	if req.Eval != nil {
		reply.EvalID, reply.EvalCreateIndex = req.Eval.ID, index
	}
	return reply, nil
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
	req := &structs.JobDeregisterRequest{Namespace: ns, JobID: job.ID, Purge: args.Purge, SubmitTime: e.srv.now().UnixNano()}
	if !job.IsMultiInstanceParent() {
		req.Eval = e.srv.newJobEval(job, structs.EvalTriggerJobDeregister)
	}
	index, err := e.srv.raftApply(structs.JobDeregisterRequestType, req)
	if err != nil {
		return nil, err
	}
	reply.Index, reply.JobModifyIndex = index, index
	if req.Eval != nil {
		reply.EvalID, reply.EvalCreateIndex = req.Eval.ID, index
	}
	return reply, nil
}
