package structs

import "time"

// Requests and responses of the Job.* endpoints. The raft payloads of the
// same writes (JobRegisterRequest, ...) are in requests.go, so the RPC
// arguments of writes are named ...Args.

// JobListRequest lists jobs in the request's namespace ("*" for all).
type JobListRequest struct {
	QueryOptions
}

// JobListResponse is one page of jobs with each one's summary
// (Summaries[i] is Jobs[i]'s): the CLI resolves job names through the list
// and reads the summary of the match.
type JobListResponse struct {
	Jobs      []*Job
	Summaries []*JobSummary
	QueryMeta
}

// JobSpecificRequest addresses one job in the request's namespace.
type JobSpecificRequest struct {
	JobID string
	// All includes allocs of every version of the job (job allocations).
	All bool
	QueryOptions
}

// SingleJobResponse is one job, nil when absent.
type SingleJobResponse struct {
	Job *Job
	QueryMeta
}

// JobVersionsResponse lists a job's versions, newest first.
type JobVersionsResponse struct {
	Versions []*Job
	QueryMeta
}

// JobEvaluationsResponse lists a job's evaluations.
type JobEvaluationsResponse struct {
	Evaluations []*Evaluation
	QueryMeta
}

// JobAllocationsResponse lists a job's allocations.
type JobAllocationsResponse struct {
	Allocations []*Allocation
	QueryMeta
}

// TaskGroupSummary counts a task group's allocs by client state.
type TaskGroupSummary struct {
	Queued, Complete, Failed, Running, Starting, Lost, Unknown int
}

// JobChildrenSummary counts a periodic or parameterized parent's children.
type JobChildrenSummary struct {
	Pending, Running, Dead int64
}

// JobSummary is what `job status` shows at the top: per group counts.
type JobSummary struct {
	JobID, Namespace string
	Summary          map[string]TaskGroupSummary
	Children         *JobChildrenSummary
	CreateIndex      uint64
	ModifyIndex      uint64
}

// JobSummaryResponse is a job's summary, nil when the job is absent.
type JobSummaryResponse struct {
	JobSummary *JobSummary
	QueryMeta
}

// JobRegisterArgs registers or updates a job.
type JobRegisterArgs struct {
	Job *Job
	// EnforceIndex makes the register conditional: it only applies if the
	// job's current JobModifyIndex equals JobModifyIndex (0: must not exist).
	EnforceIndex   bool
	JobModifyIndex uint64
	// Submission is the source the job was written as, kept for
	// `job inspect -hcl` (optional).
	Submission *JobSubmission
	WriteRequest
}

// JobRegisterResponse tells the caller what a job write wrote: register,
// scale, evaluate and revert answer it.
type JobRegisterResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	JobModifyIndex  uint64
	Warnings        string
	WriteMeta
}

// JobDeregisterArgs stops a job (in the request's namespace), or deletes
// it with Purge.
type JobDeregisterArgs struct {
	JobID string
	Purge bool
	WriteRequest
	// NoShutdownDelay stops the allocs without their shutdown_delay.
	NoShutdownDelay bool
	// EvalPriority overrides the job's priority for the deregister's eval
	// (1-100; 0 keeps the job's).
	EvalPriority int
}

// JobDeregisterResponse tells the caller what the deregister wrote.
type JobDeregisterResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	JobModifyIndex  uint64
	WriteMeta
}

// JobScaleArgs changes one task group's count.
type JobScaleArgs struct {
	JobID   string
	Group   string
	Count   *int64
	Message string
	Meta    map[string]any
	WriteRequest
}

// JobEvaluateArgs forces a new evaluation of a job.
type JobEvaluateArgs struct {
	JobID string
	WriteRequest
}

// JobRevertArgs registers an earlier version of a job as its newest. With
// EnforcePriorVersion set, the current version must equal it.
type JobRevertArgs struct {
	JobID               string
	JobVersion          uint64
	EnforcePriorVersion *uint64
	WriteRequest
}

// JobValidateArgs validates a job without writing it.
type JobValidateArgs struct {
	Job *Job
	WriteRequest
}

// JobValidateResponse lists every problem of an invalid job (none when
// valid); Error joins them.
type JobValidateResponse struct {
	ValidationErrors []string
	Error            string
}

// JobPlanArgs asks what the scheduler would do with a job.
type JobPlanArgs struct {
	Job *Job
	WriteRequest
}

// JobPlanResponse is the outcome of a dry run: what the scheduler would do.
type JobPlanResponse struct {
	Old, New           *Job // Old is nil for a new job
	Annotations        *PlanAnnotations
	FailedTGAllocs     map[string]*AllocMetric
	CreatedEvals       []*Evaluation
	JobModifyIndex     uint64
	NextPeriodicLaunch time.Time
	WriteMeta
	// Warnings, as register's: what the job asks that this cluster's
	// configuration will not honour (memory_max without oversubscription).
	Warnings string
}

// JobDispatchArgs dispatches a parameterized job.
type JobDispatchArgs struct {
	JobID    string
	Payload  []byte
	Meta     map[string]string
	IDPrefix string
	Priority int
	WriteRequest
}

// JobDispatchResponse names the dispatched child and its eval.
type JobDispatchResponse struct {
	DispatchedJobID string
	EvalID          string
	EvalCreateIndex uint64
	JobCreateIndex  uint64
	WriteMeta
}

// JobPeriodicForceArgs launches a periodic job now.
type JobPeriodicForceArgs struct {
	JobID string
	WriteRequest
}

// JobPeriodicForceResponse names the launched child's eval.
type JobPeriodicForceResponse struct {
	EvalID          string
	EvalCreateIndex uint64
	WriteMeta
}

// JobScaleStatusResponse is a job's per-group scale status with its recent
// scaling events (nil Status when the job is absent).
type JobScaleStatusResponse struct {
	Status *JobScaleStatus
	QueryMeta
}

// JobScaleStatus is what `job scale` and the scaling policy readers show.
type JobScaleStatus struct {
	JobID, Namespace               string
	JobCreateIndex, JobModifyIndex uint64
	JobStopped                     bool
	TaskGroups                     map[string]TaskGroupScaleStatus
}

// TaskGroupScaleStatus counts a group's allocs against its count.
type TaskGroupScaleStatus struct {
	Desired, Placed, Running, Healthy, Unhealthy int
	Events                                       []*ScalingEvent
}

// JobSubmissionRequest asks for the source a job version was submitted as.
type JobSubmissionRequest struct {
	JobID   string
	Version uint64
	QueryOptions
}

// JobSubmissionResponse carries it (nil when there is none).
type JobSubmissionResponse struct {
	Submission *JobSubmission
	QueryMeta
}

// JobStabilityArgs marks a job version stable or unstable.
type JobStabilityArgs struct {
	JobID   string
	Version uint64
	Stable  bool
	WriteRequest
}

// JobStabilityResponse reports the write.
type JobStabilityResponse struct {
	JobModifyIndex uint64
	WriteMeta
}

// JobTagArgs tags a version (Version, or the latest with Latest) with
// Name, or with Untag removes the tag named Name.
type JobTagArgs struct {
	JobID       string
	Name        string
	Version     uint64
	Latest      bool
	Description string
	Untag       bool
	WriteRequest
}

// JobTagResponse reports the write.
type JobTagResponse struct {
	WriteMeta
}
