package scheduler

import (
	"fmt"
	"maps"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Descriptions of the follow-up evals a scheduler creates.
const (
	blockedEvalDescQueued       = "created to place remaining allocations"
	blockedEvalDescMaxPlans     = "created due to placement conflicts"
	evalDescUnhandledTrigger    = "scheduler cannot handle '%s' evaluation reason"
	evalDescSupersededByVersion = "canceled: superseded by job version %d"
)

// EvalDescNoOp is the StatusDescription of an eval the scheduler canceled
// because processing it changed nothing.
const EvalDescNoOp = "canceled: no-op, nothing to change"

// outcome is what a scheduler writes back on the eval it processed, and the
// follow-ups it created; shared by every scheduler type.
type outcome struct {
	planner    Planner
	eval       *structs.Evaluation // the eval being processed (a copy)
	failed     map[string]*structs.AllocMetric
	queued     map[string]int
	blocked    *structs.Evaluation // blocked follow-up, if created
	next       *structs.Evaluation // rolling follow-up, if created
	deployment string
	ids        func() string // nil: newID
}

// finish writes the eval's final status with its outcomes and pointers.
func (o *outcome) finish(status, desc string) error {
	return o.planner.UpdateEval(o.final(status, desc))
}

// final is the eval as finish writes it.
func (o *outcome) final(status, desc string) *structs.Evaluation {
	e := o.eval.Copy()
	e.Status, e.StatusDescription = status, desc
	if o.blocked != nil {
		e.BlockedEval = o.blocked.ID
	}
	if o.next != nil {
		e.NextEval = o.next.ID
	}
	e.FailedTGAllocs = copyMetrics(o.failed)
	e.QueuedAllocations = maps.Clone(o.queued)
	if o.deployment != "" {
		e.DeploymentID = o.deployment
	}
	return e
}

// attachFinal gives plan the eval this scheduler writes if the plan
// commits in full, so the leader can write it in the plan's own entry
// (structs.Plan.FinalEval): after a full commit processing ends there
// with status complete, and the committed placements no longer count as
// queued. placed maps the plan's new allocs to their task groups. An eval
// that would be re-blocked instead gets nothing attached.
func (o *outcome) attachFinal(plan *structs.Plan, placed map[string]string) {
	plan.FinalEval = nil
	if o.eval.Status == structs.EvalStatusBlocked && len(o.failed) > 0 {
		return
	}
	e := o.final(structs.EvalStatusComplete, "")
	for _, allocs := range plan.NodeAllocation {
		for _, a := range allocs {
			if tg, ok := placed[a.ID]; ok {
				e.QueuedAllocations[tg]--
			}
		}
	}
	plan.FinalEval = e
}

// finishProcessed ends an eval whose processing ran to the end: canceled
// when it was a no-op (nothing submitted, nothing left to place, no
// follow-up written; docs/design.md: "pending/blocked -- if no-op --> canceled"),
// with the superseding version named when a newer job version made it
// stale; complete otherwise.
func (o *outcome) finishProcessed(submitted, followUps bool, job *structs.Job) error {
	if submitted || followUps || len(o.failed) > 0 || o.blocked != nil || o.next != nil {
		return o.finish(structs.EvalStatusComplete, "")
	}
	if evalSuperseded(o.eval, job) {
		return o.finish(structs.EvalStatusCanceled, fmt.Sprintf(evalDescSupersededByVersion, job.Version))
	}
	return o.finish(structs.EvalStatusCanceled, EvalDescNoOp)
}

// evalSuperseded reports whether a newer job version was registered after
// the eval was created.
func evalSuperseded(eval *structs.Evaluation, job *structs.Job) bool {
	return job != nil && eval.JobModifyIndex != 0 && eval.JobModifyIndex < job.JobModifyIndex
}

// createBlocked writes a blocked follow-up eval (queued-allocs, or
// max-plan-attempts when planFailure) carrying the class eligibility, so
// the blocked-evals tracker wakes it only for nodes that could help. A
// system job's blocked eval may be tied to the one node that lacked room.
func (o *outcome) createBlocked(planFailure bool, ctx *evalContext, now time.Time, nodeID string) error {
	var classes map[string]bool
	escaped := false
	if ctx != nil {
		classes, escaped = ctx.classEligibility(), ctx.escaped
	}
	b := o.eval.CreateBlockedEval(idFrom(o.ids), classes, escaped, "", copyMetrics(o.failed), now)
	b.StatusDescription = blockedEvalDescQueued
	b.NodeID = nodeID
	if planFailure {
		b.TriggeredBy = structs.EvalTriggerMaxPlans
		b.StatusDescription = blockedEvalDescMaxPlans
	}
	o.blocked = b
	return o.planner.CreateEval(b)
}

// reblock re-blocks the blocked eval being processed with the latest
// eligibility instead of creating another blocked eval.
func (o *outcome) reblock(ctx *evalContext) error {
	e := o.eval.Copy()
	e.ClassEligibility = ctx.classEligibility()
	e.EscapedComputedClass = ctx.escaped
	e.FailedTGAllocs = copyMetrics(o.failed)
	e.QueuedAllocations = maps.Clone(o.queued)
	return o.planner.ReblockEval(e)
}

func copyMetrics(m map[string]*structs.AllocMetric) map[string]*structs.AllocMetric {
	if m == nil {
		return nil
	}
	out := make(map[string]*structs.AllocMetric, len(m))
	for k, v := range m {
		out[k] = v.Copy()
	}
	return out
}

// handledTriggers are the triggers the job schedulers act on; anything
// else (e.g. the core scheduler's "scheduled") fails the eval.
var handledTriggers = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range structs.AllEvalTriggers {
		m[t] = t != structs.EvalTriggerScheduled
	}
	return m
}()
