package leader

import (
	"github.com/drover-project/drover/internal/fsm"
	"github.com/drover-project/drover/internal/structs"
)

// origin is where an eval being routed comes from.
type origin int

const (
	// written: the FSM just wrote it (the sink).
	written origin = iota
	// restored: a new leader (or a snapshot restore) read it from state.
	restored
)

// route hands one eval to the component its status calls for: pending to
// the broker, blocked to the tracker (or, when its job is stopped or gone,
// to the stopped-job queue, which cancels it), failed without its
// follow-up to the follow-up reaper. It is the one routing of both the
// FSM sink and the leadership restore. They differ in what only a write
// implies: a worker's re-block comes with its broker token (a restored
// eval has none), the timeline records an eval's blocking when it is
// written, and a written job-deregister eval takes its job's blocked
// evals out of the tracker (a restore, which rebuilds the tracker eval by
// eval, must not).
func (l *Leader) route(e *structs.Evaluation, token string, from origin) {
	switch {
	case e.ShouldEnqueue():
		l.broker.Enqueue(e)
		if from == written {
			l.untrackStoppedJob(e)
		}
	case e.ShouldBlock() && token != "":
		l.blocked.Reblock(e, token)
	case e.ShouldBlock() && l.jobStoppedOrGone(e):
		if from == written {
			l.timeline.Record(e.ID, structs.EvalStatusBlocked, "", "")
		}
		l.stoppedJobBlocked.push(e)
	case e.ShouldBlock():
		if from == written {
			l.timeline.Record(e.ID, structs.EvalStatusBlocked, "", "")
		}
		l.blocked.Block(e)
	case needsFailedFollowUp(e):
		l.failedEvals.push(e)
	}
}

// Sink is what the FSM hands written evals and capacity changes to.
func (l *Leader) Sink() fsm.EvalSink { return sink{l} }

// sink receives what the FSM writes and routes it to the leader's
// components. It runs inside FSM.Apply: it must not block or write to raft.
type sink struct{ l *Leader }

var _ fsm.EvalSink = sink{}

// EvalsWritten routes each written eval by status (route).
func (k sink) EvalsWritten(evals []*structs.Evaluation, token string) {
	if !k.l.active.Load() {
		return
	}
	for _, e := range evals {
		k.l.route(e, token, written)
	}
}

// CapacityChanged unblocks evals that may now fit on the node.
func (k sink) CapacityChanged(node *structs.Node, index uint64) {
	if !k.l.active.Load() {
		return
	}
	k.l.blocked.Unblock(node.ComputedClass, index)
	k.l.blocked.UnblockNode(node.ID, index)
}
