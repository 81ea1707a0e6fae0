// Package planapply is the leader's plan queue and plan applier.
//
// Schedulers run concurrently without locks (optimistic concurrency, as in
// Omega): two workers may both place work on the same node from the same
// snapshot. The applier is the single point where plans are serialised: it
// takes plans from the PlanQueue in priority order, re-checks every node a
// plan touches against the committed state overlaid with the plans still
// being committed (Evaluate on an overlay), commits the part that still fits
// in one raft entry, and answers the worker with a PlanResult once that
// entry is committed. When any node was rejected the result carries a
// RefreshIndex, so the worker retries on a snapshot that includes whatever
// beat it. Plans are proposed without waiting for the entries before them
// (pipeline.go), so raft commits many in one write.
//
// Every piece can be stepped synchronously (Dequeue with a done context,
// then ApplyOne, which takes one plan through the whole pipeline) so tests
// can drive the applier deterministically; Run is the loop a real leader
// runs, which keeps many plans in flight.
//
// Wiring on the leader: on gaining leadership call SetEnabled(true) and
// start Run with a context that ends on losing it; then SetEnabled(false),
// which fails queued plans with ErrNotLeader. Raft.ApplyPlanResults (and an
// AsyncRaft's CommitFuture.Wait) must return only once the entry is
// committed and applied locally, and StateSource.SnapshotMinIndex must wait
// for the local FSM to have applied an index: together with the overlay they
// make every plan see the plans before it.
//
// # Evaluating a plan
//
// The queue (queue.go) is a priority queue. The applier checks the eval's
// token with the broker (token.go), then evaluates every node of the plan
// (node.go, fit.go, claims.go: node ready, eligible, not draining; cpu,
// cores, memory, disk; port and core collisions; fit_summary.go accepts a
// node where nothing exclusive is claimed from the store's per-node usage
// summary, without adding up its allocs), commits what fits in one
// raft entry with one preemption eval per preempted job (request.go), and
// returns RefreshIndex when anything was rejected. A plan whose job was
// purged, purged and re-registered, or stopped by a newer version since it
// was computed (structs.PlanJobGone) places nothing: the applier rejects its
// nodes with placements (stops still apply) and the state store strips the
// job write, placements, preemptions and new deployment inside the commit's
// transaction. The commit also sets NextAllocation on the alloc each new
// placement replaces (PreviousAllocation), which job restart -reschedule
// follows. Config.OnEvaluate observes each evaluation's duration (the
// nomad.nomad.plan.evaluate metric).
//
// # The pipeline
//
// By default (pipeline.go, overlay.go, commit.go) the applier does not wait
// for one plan's commit before the next. It evaluates each plan on a
// snapshot that includes every entry it has seen commit, overlaid with the
// placements of its plans still in raft, proposes the accepted part at once
// (AsyncRaft.StartPlanResults; the server's planRaft returns
// hashicorp/raft's future), and answers each plan only when its own entry
// has committed and been applied, oldest first. Raft writes and replicates
// the entries proposed while it is busy in one batch, so one fsync commits
// many plans (group commit).
//
// The overlay only adds: uncommitted placements count against their nodes,
// uncommitted stops and evictions free nothing (an in-place update counts
// both versions). A plan that fits on it therefore fits whatever subset of
// the overlaid entries commits, so two plans can never over-commit a node or
// claim one port, even when an entry under them fails. A plan with nothing
// to commit that was rejected on top of uncommitted plans waits for them: if
// they commit it is answered with a RefreshIndex covering them; if one
// failed it is evaluated again on the committed state. After an entry
// settles the snapshot is taken afresh, and so it is whenever a plan was
// computed on a newer snapshot than the pipeline's (Plan.SnapshotIndex,
// waited for up to 5 s): an older one may not know the plan's job yet and
// would reject it as gone.
//
// At most 128 plans are between dequeue and answer (maxPipeline); the
// goroutine that settles an entry wakes Run's loop, which then takes plans
// again. When Run's context ends (leadership lost) the plans in raft are
// answered with their entries' outcomes (errors: the workers nack) and the
// waiting ones get ErrNotLeader. At shutdown (Config.Stopping: the
// server's root context) the applier waits for no entry in raft, which
// raft may not apply before it stops: every plan still in the pipeline
// fails with ErrShuttingDown at once. ApplyOne is still the synchronous step (one
// plan through the whole pipeline alone), and a Raft that is not an
// AsyncRaft commits in propose, which makes the pipeline the serial applier.
// Config.Serial (server Config.SerialPlanApply, drover bench -serial-plans)
// restores the strictly serial loop. BenchmarkPlanApplyCommitLatency
// compares the two with a fake raft whose every write takes 17 ms.
//
// # Evals finished by their plan
//
// A plan that, once committed in full, leaves its scheduler nothing to do
// but write "complete" carries that final eval (structs.Plan.FinalEval,
// built by the scheduler). When the applier accepts every node of such a
// plan it writes the eval in the plan's own entry (attachFinalEval:
// ApplyPlanResultsRequest.FinalEval, stamped with the entry's time, which
// also becomes the time of the eval's final timeline step), acks it once the
// entry commits (finishEval, through Config.AckEval; the server's
// ackEvalFinishedByPlan also forgets a follower's hold), and answers
// PlanResult.EvalFinished. The scheduler then returns without UpdateEval and
// the worker writes and acks nothing: one raft entry per eval and, for a
// follower, one round trip fewer. A partly rejected plan commits without it
// and the scheduler goes on as before.
//
// The pipelined applier answers such a plan as soon as its entry is proposed
// (answerBeforeCommit), not when it commits: whatever the entry's outcome
// the worker has nothing left to do with the eval, and the broker gives out
// no other eval of the job until the ack. If the entry then fails, the
// applier nacks the eval (settleAnswered, through Config.NackEval: the
// server's nackEvalOfFailedPlan), still pending in the state, and another
// worker schedules it again. Workers thus stop waiting out the commit
// (fsyncs and a replication round trip, the longest part of an eval's
// cycle); in drover bench -servers 3 scenario a went from 4,356/4,621/4,880
// to 6,149/5,904/5,100 placements/s (alternating runs) and evals no longer
// queue behind the workers (queued p50 from about 800 ms to 15 ms). Only a
// worker whose plan was partly rejected, or whose eval goes on, waits for
// the commit.
package planapply
