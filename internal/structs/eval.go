package structs

import "time"

// Evaluation statuses that are stored in the state store. The quasi-statuses
// of docs/design.md (delayed, scheduling, applying, deleted) are not
// stored; they are observable through the broker and plan queue instead.
const (
	EvalStatusPending  = "pending"
	EvalStatusBlocked  = "blocked"
	EvalStatusComplete = "complete"
	EvalStatusFailed   = "failed"
	EvalStatusCanceled = "canceled"
)

// Quasi-statuses: states an evaluation is in without a stored Status value.
const (
	EvalQuasiStatusDelayed    = "delayed"
	EvalQuasiStatusScheduling = "scheduling"
	EvalQuasiStatusApplying   = "applying"
	EvalQuasiStatusDeleted    = "deleted"
)

// Evaluation triggers: the TriggeredBy values of docs/design.md.
const (
	EvalTriggerJobRegister          = "job-register"
	EvalTriggerJobDeregister        = "job-deregister"
	EvalTriggerPeriodicJob          = "periodic-job"
	EvalTriggerNodeDrain            = "node-drain"
	EvalTriggerNodeUpdate           = "node-update"
	EvalTriggerAllocStop            = "alloc-stop"
	EvalTriggerScheduled            = "scheduled"
	EvalTriggerRollingUpdate        = "rolling-update"
	EvalTriggerDeploymentWatcher    = "deployment-watcher"
	EvalTriggerFailedFollowUp       = "failed-follow-up"
	EvalTriggerMaxPlans             = "max-plan-attempts"
	EvalTriggerRetryFailedAlloc     = "alloc-failure"
	EvalTriggerQueuedAllocs         = "queued-allocs"
	EvalTriggerPreemption           = "preemption"
	EvalTriggerScaling              = "job-scaling"
	EvalTriggerMaxDisconnectTimeout = "max-disconnect-timeout"
	EvalTriggerReconnect            = "reconnect"
)

// AllEvalTriggers lists every trigger, in the order of docs/design.md.
var AllEvalTriggers = []string{
	EvalTriggerJobRegister, EvalTriggerJobDeregister, EvalTriggerPeriodicJob,
	EvalTriggerNodeDrain, EvalTriggerNodeUpdate, EvalTriggerAllocStop,
	EvalTriggerScheduled, EvalTriggerRollingUpdate, EvalTriggerDeploymentWatcher,
	EvalTriggerFailedFollowUp, EvalTriggerMaxPlans, EvalTriggerRetryFailedAlloc,
	EvalTriggerQueuedAllocs, EvalTriggerPreemption, EvalTriggerScaling,
	EvalTriggerMaxDisconnectTimeout, EvalTriggerReconnect,
}

// EvalFailureKind says why an eval failed, so the leader decides by value
// (not by the StatusDescription's words) whether a failed-follow-up can
// help.
type EvalFailureKind string

const (
	// EvalFailureScheduler: the scheduler gave up (e.g. past its plan
	// attempt limit); the zero value, so any failed eval is retryable
	// unless marked otherwise.
	EvalFailureScheduler EvalFailureKind = ""
	// EvalFailureDeliveryLimit: the broker delivered it DeliveryLimit times
	// without an ack.
	EvalFailureDeliveryLimit EvalFailureKind = "delivery-limit"
	// EvalFailureWrongType: no scheduler exists for the eval's type; a bug
	// in whoever wrote it, which retrying cannot fix.
	EvalFailureWrongType EvalFailureKind = "wrong-type"
)

// Retryable reports whether a failed-follow-up eval can succeed where
// this failure did.
func (k EvalFailureKind) Retryable() bool { return k != EvalFailureWrongType }

// Evaluation is a unit of scheduling work.
type Evaluation struct {
	ID                   string
	Namespace            string
	Priority             int
	Type                 string // scheduler type: service, batch, system, sysbatch, _core
	TriggeredBy          string
	JobID                string
	JobModifyIndex       uint64
	NodeID               string
	NodeModifyIndex      uint64
	DeploymentID         string
	Status               string
	StatusDescription    string
	FailureKind          EvalFailureKind // why a failed eval failed; Drover-specific
	Wait                 time.Duration
	WaitUntil            time.Time
	NextEval             string
	PreviousEval         string
	BlockedEval          string
	RelatedEvals         []*EvaluationStub // filled on read with related=true; never stored
	FailedTGAllocs       map[string]*AllocMetric
	ClassEligibility     map[string]bool
	QuotaLimitReached    string
	EscapedComputedClass bool
	AnnotatePlan         bool
	QueuedAllocations    map[string]int
	LeaderACL            string
	SnapshotIndex        uint64
	// Timeline records when the eval entered each status and quasi-status
	// (pending, delayed, scheduling, applying, final) and which worker held
	// it. Drover-specific; Nomad clients ignore it.
	Timeline    []*EvalTimelineEntry
	CreateIndex uint64
	ModifyIndex uint64
	CreateTime  int64 // unix nanoseconds
	ModifyTime  int64 // unix nanoseconds
}

// EvalTimelineEntry is one step of an evaluation's lifecycle.
type EvalTimelineEntry struct {
	Status string // a stored status or a quasi-status
	Time   int64  // unix nanoseconds
	Worker string // the worker that held the eval, when one did
	Note   string // why, e.g. "plan rejected on 1 node; refresh to index 42"
	// PlanID names the plan of an applying step.
	PlanID string
}

// EvaluationStub is the summary of an evaluation used in related-eval lists.
type EvaluationStub struct {
	ID                string
	Namespace         string
	Priority          int
	Type              string
	TriggeredBy       string
	JobID             string
	NodeID            string
	DeploymentID      string
	Status            string
	StatusDescription string
	WaitUntil         time.Time
	NextEval          string
	PreviousEval      string
	BlockedEval       string
	CreateIndex       uint64
	ModifyIndex       uint64
	CreateTime        int64
	ModifyTime        int64
}

// TerminalStatus reports whether the evaluation will never be scheduled again.
func (e *Evaluation) TerminalStatus() bool {
	switch e.Status {
	case EvalStatusComplete, EvalStatusFailed, EvalStatusCanceled:
		return true
	}
	return false
}

// ShouldEnqueue reports whether the broker should take this eval.
func (e *Evaluation) ShouldEnqueue() bool { return e.Status == EvalStatusPending }

// ShouldBlock reports whether the blocked-evals tracker should take this eval.
func (e *Evaluation) ShouldBlock() bool { return e.Status == EvalStatusBlocked }

// Stub returns the summary form of the evaluation.
func (e *Evaluation) Stub() *EvaluationStub {
	return &EvaluationStub{
		ID: e.ID, Namespace: e.Namespace, Priority: e.Priority, Type: e.Type,
		TriggeredBy: e.TriggeredBy, JobID: e.JobID, NodeID: e.NodeID,
		DeploymentID: e.DeploymentID, Status: e.Status,
		StatusDescription: e.StatusDescription, WaitUntil: e.WaitUntil,
		NextEval: e.NextEval, PreviousEval: e.PreviousEval, BlockedEval: e.BlockedEval,
		CreateIndex: e.CreateIndex, ModifyIndex: e.ModifyIndex,
		CreateTime: e.CreateTime, ModifyTime: e.ModifyTime,
	}
}

// NextRollingEval creates the follow-up eval for a system job's next stagger
// step: new.PreviousEval = e.ID; the caller sets e.NextEval = new.ID.
func (e *Evaluation) NextRollingEval(id string, wait time.Duration, now time.Time) *Evaluation {
	return e.followUp(id, EvalTriggerRollingUpdate, EvalStatusPending, wait, now)
}

// CreateBlockedEval creates the blocked follow-up of an eval that could not
// place everything: new.PreviousEval = e.ID; the caller sets e.BlockedEval.
func (e *Evaluation) CreateBlockedEval(id string, classEligibility map[string]bool, escaped bool, quotaReached string, failed map[string]*AllocMetric, now time.Time) *Evaluation {
	n := e.followUp(id, EvalTriggerQueuedAllocs, EvalStatusBlocked, 0, now)
	n.ClassEligibility = classEligibility
	n.EscapedComputedClass = escaped
	n.QuotaLimitReached = quotaReached
	n.FailedTGAllocs = failed
	return n
}

// CreateFailedFollowUpEval creates the delayed retry of a failed eval:
// new.PreviousEval = e.ID; the caller sets e.NextEval = new.ID.
func (e *Evaluation) CreateFailedFollowUpEval(id string, wait time.Duration, now time.Time) *Evaluation {
	return e.followUp(id, EvalTriggerFailedFollowUp, EvalStatusPending, wait, now)
}

func (e *Evaluation) followUp(id, trigger, status string, wait time.Duration, now time.Time) *Evaluation {
	n := &Evaluation{
		ID: id, Namespace: e.Namespace, Priority: e.Priority, Type: e.Type,
		TriggeredBy: trigger, JobID: e.JobID, JobModifyIndex: e.JobModifyIndex,
		Status: status, PreviousEval: e.ID, Wait: wait,
		CreateTime: now.UnixNano(), ModifyTime: now.UnixNano(),
	}
	if wait > 0 {
		n.WaitUntil = now.Add(wait)
	}
	return n
}
