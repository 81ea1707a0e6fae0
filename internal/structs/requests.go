package structs

// Raft log entry payloads. Everything non-deterministic (IDs, timestamps,
// random choices) is decided before the entry is proposed; the FSM only
// applies what is in the entry.

// JobRegisterRequest registers a job and, unless it is a periodic or
// parameterized parent, its job-register evaluation, in one entry.
type JobRegisterRequest struct {
	Job        *Job
	Eval       *Evaluation
	SubmitTime int64 // unix nanoseconds
	// Submission, when set, is stored as the source of the version this
	// entry writes; ScalingEvent records the scale that made it.
	Submission   *JobSubmission
	ScalingEvent *ScalingEventEntry
}

// JobDeregisterRequest stops (or with Purge, deletes) a job and writes its
// job-deregister evaluation in one entry.
type JobDeregisterRequest struct {
	Namespace  string
	JobID      string
	Purge      bool
	Eval       *Evaluation
	SubmitTime int64
	// NoShutdownDelay marks the job's live allocs to stop without their
	// groups' and tasks' shutdown_delay (`job stop -no-shutdown-delay`),
	// in the same entry as the stop.
	NoShutdownDelay bool
}

// JobBatchDeregisterRequest stops or purges several jobs at once (core GC).
type JobBatchDeregisterRequest struct {
	Jobs       []JobDeregisterRequest
	Evals      []*Evaluation
	SubmitTime int64
}

// EvalUpdateRequest upserts evaluations (status changes, follow-ups).
type EvalUpdateRequest struct {
	Evals     []*Evaluation
	EvalToken string
}

// EvalDeleteRequest deletes terminal evaluations and allocations (GC).
type EvalDeleteRequest struct {
	Evals  []string
	Allocs []string
}

// NodeRegisterRequest registers or re-registers a node, with the
// node-update evals its (re)appearance causes.
type NodeRegisterRequest struct {
	Node      *Node
	NodeEvent *NodeEvent
	Evals     []*Evaluation
	UpdatedAt int64 // unix seconds
}

// NodeDeregisterRequest removes nodes.
type NodeDeregisterRequest struct {
	NodeIDs []string
	Evals   []*Evaluation
}

// NodeUpdateStatusRequest changes a node's status and writes the evals the
// change causes, in one entry.
type NodeUpdateStatusRequest struct {
	NodeID    string
	Status    string
	NodeEvent *NodeEvent
	Evals     []*Evaluation
	UpdatedAt int64 // unix seconds
}

// NodeUpdateDrainRequest starts, changes or ends a node's drain.
type NodeUpdateDrainRequest struct {
	NodeID        string
	DrainStrategy *DrainStrategy
	MarkEligible  bool
	NodeEvent     *NodeEvent
	Evals         []*Evaluation
	UpdatedAt     int64
}

// NodeUpdateEligibilityRequest changes a node's scheduling eligibility.
type NodeUpdateEligibilityRequest struct {
	NodeID      string
	Eligibility string
	NodeEvent   *NodeEvent
	Evals       []*Evaluation
	UpdatedAt   int64
}

// AllocUpdateRequest carries allocation updates: from clients (client
// status, task states, deployment health) or from the server (alloc stop).
type AllocUpdateRequest struct {
	Allocs    []*Allocation
	Evals     []*Evaluation
	UpdatedAt int64 // unix nanoseconds
}

// AllocUpdateDesiredTransitionRequest sets desired transitions (drain,
// forced reschedule) on allocations.
type AllocUpdateDesiredTransitionRequest struct {
	Allocs map[string]*DesiredTransition
	Evals  []*Evaluation
}

// ApplyPlanResultsRequest commits the accepted part of a plan.
type ApplyPlanResultsRequest struct {
	// AllocsUpdated are new or in-place updated allocations.
	AllocsUpdated []*Allocation
	// AllocsStopped are allocations the plan stops or evicts.
	AllocsStopped []*Allocation
	// AllocsPreempted are allocations evicted to make room.
	AllocsPreempted   []*Allocation
	Job               *Job
	Deployment        *Deployment
	DeploymentUpdates []*DeploymentStatusUpdate
	EvalID            string
	// PreemptionEvals are the evals for jobs whose allocs were preempted.
	PreemptionEvals []*Evaluation
	UpdatedAt       int64 // unix nanoseconds
	// FinalEval is the plan's eval with its final status (Plan.FinalEval),
	// written in this entry when the whole plan was accepted.
	FinalEval *Evaluation
}

// DeploymentStatusUpdateRequest changes a deployment's status, optionally
// with a job to revert to and an eval, in one entry.
type DeploymentStatusUpdateRequest struct {
	DeploymentUpdate *DeploymentStatusUpdate
	Job              *Job
	Eval             *Evaluation
	UpdatedAt        int64
}

// SchedulerSetConfigRequest replaces the scheduler configuration. With CAS
// it only applies if the stored ModifyIndex equals Config.ModifyIndex.
type SchedulerSetConfigRequest struct {
	Config SchedulerConfiguration
	CAS    bool
}

// DeploymentPromoteRequest promotes the canaries of a deployment's groups
// (all of them with All), optionally with the eval that takes the next
// step, in one entry.
type DeploymentPromoteRequest struct {
	DeploymentID string
	All          bool
	Groups       []string
	Eval         *Evaluation
	UpdatedAt    int64
}

// DeploymentAllocHealthRequest sets the health of a deployment's allocs
// by hand (`update { health_check = "manual" }`), with the eval that takes
// the next step, in one entry. UpdatedAt (the servers' clock) is the
// health timestamp.
type DeploymentAllocHealthRequest struct {
	DeploymentID           string
	HealthyAllocationIDs   []string
	UnhealthyAllocationIDs []string
	Eval                   *Evaluation
	UpdatedAt              int64
}
