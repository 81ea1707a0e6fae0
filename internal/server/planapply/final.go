package planapply

import (
	"github.com/drover-project/drover/internal/structs"
)

// A plan that finishes its eval carries the eval's final status
// (structs.Plan.FinalEval). When the whole plan fits, the applier writes
// that status in the plan's own entry and, once the entry commits, acks
// the eval itself: the worker then has nothing left to write or ack. An
// eval thus costs one raft entry and, for a follower's worker, one round
// trip to the leader fewer. A plan that is partly rejected commits
// without the status: its scheduler refreshes and goes on as before.

// attachFinalEval puts the plan's final eval into its entry when every
// node of the plan was accepted, stamped with the entry's time: the
// eval's ModifyTime and its last timeline step (the final status, which
// the worker appended) say when the leader accepted the plan, as its
// allocs' times do.
func (a *Applier) attachFinalEval(plan *structs.Plan, res *structs.PlanResult, req *structs.ApplyPlanResultsRequest) {
	if a.ackEval == nil || plan.FinalEval == nil || res.RefreshIndex != 0 || len(res.RejectedNodes) > 0 {
		return
	}
	e := plan.FinalEval.Copy()
	e.ModifyTime = req.UpdatedAt
	if n := len(e.Timeline); n > 0 && e.Timeline[n-1].Status == e.Status {
		e.Timeline[n-1].Time = req.UpdatedAt
	}
	req.FinalEval = e
}

// finishEval acks the eval of a committed entry that wrote its final
// status, and tells the worker so. The status is committed whatever the
// ack's outcome: an eval whose delivery expired meanwhile is no longer
// this worker's to finish, so a failed ack is only logged.
func (a *Applier) finishEval(m *member) {
	if !finishesEval(m) {
		return
	}
	a.ackFinished(m)
	markFinished(m)
}

// finishesEval reports whether m's entry writes its eval's final status.
func finishesEval(m *member) bool { return m.req != nil && m.req.FinalEval != nil }

func markFinished(m *member) {
	m.result.EvalFinished = true
	m.result.EvalFinishTime = m.req.FinalEval.ModifyTime
}

func (a *Applier) ackFinished(m *member) {
	plan := m.pending.Plan
	if err := a.ackEval(plan.EvalID, plan.EvalToken); err != nil {
		a.log.Warn("plan wrote its eval's final status but the ack failed", "eval_id", plan.EvalID, "index", m.index, "error", err)
	}
}

// answerBeforeCommit answers the worker of a plan that finishes its eval
// as soon as its entry is proposed. Whatever the entry's outcome the
// worker has nothing left to do with the eval: the applier acks it once
// the entry commits, or nacks it if the entry fails (settleAnswered), and
// the broker gives out no other eval of the job until then. So the worker
// takes its next eval while the entry is written and replicated, instead
// of waiting out the commit (the longest part of an eval's cycle).
func (a *Applier) answerBeforeCommit(m *member) {
	if !a.answerEarly || !finishesEval(m) {
		return
	}
	markFinished(m)
	m.answered = true
	m.pending.respond(m.result, nil) // m.result is the worker's from here on
}

// settleAnswered acks or nacks the eval of an entry whose worker was
// answered before it committed.
func (a *Applier) settleAnswered(m *member) {
	if m.err == nil {
		a.ackFinished(m)
		return
	}
	plan := m.pending.Plan
	a.log.Warn("entry of a plan that finished its eval failed; nacking the eval", "eval_id", plan.EvalID, "error", m.err)
	if err := a.nackEval(plan.EvalID, plan.EvalToken); err != nil {
		a.log.Warn("nack of a failed plan's eval failed", "eval_id", plan.EvalID, "error", err)
	}
}
