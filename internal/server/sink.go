package server

import (
	"github.com/drover-project/drover/internal/structs"
)

// leaderSink receives what the FSM writes and routes it to the leader's
// components. It runs inside FSM.Apply: it must not block or write to raft.
type leaderSink struct{ s *Server }

// EvalsWritten routes each written eval by status: pending to the broker,
// blocked to the tracker, failed to the follow-up reaper.
func (k leaderSink) EvalsWritten(evals []*structs.Evaluation, token string) {
	s := k.s
	if !s.leaderActive.Load() {
		return
	}
	for _, e := range evals {
		switch {
		case e.ShouldEnqueue():
			s.broker.Enqueue(e)
			s.untrackStoppedJob(e)
		case e.ShouldBlock() && token != "":
			s.blocked.Reblock(e, token)
		case e.ShouldBlock() && s.jobStoppedOrGone(e):
			s.timeline.Record(e.ID, structs.EvalStatusBlocked, "", "")
			s.stoppedJobBlocked.push(e)
		case e.ShouldBlock():
			s.timeline.Record(e.ID, structs.EvalStatusBlocked, "", "")
			s.blocked.Block(e)
		case needsFailedFollowUp(e):
			s.queueFailedFollowUp(e)
		}
	}
}

// CapacityChanged unblocks evals that may now fit on the node.
func (k leaderSink) CapacityChanged(node *structs.Node, index uint64) {
	s := k.s
	if !s.leaderActive.Load() {
		return
	}
	s.blocked.Unblock(node.ComputedClass, index)
	s.blocked.UnblockNode(node.ID, index)
}
