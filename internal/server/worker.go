package server

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/telemetry"
)

// How long a worker waits for its state to catch up with an eval before
// nacking it, so another (less lagging) worker or a retry can take it.
const workerStateWaitTimeout = 5 * time.Second

// maxFinishing bounds the evals one worker has handed off to be finished
// (final status written, then acked) while it schedules the next ones.
const maxFinishing = 4

// Worker dequeues evaluations and runs the scheduler for each. While it
// processes one it is that scheduler's Planner.
type Worker struct {
	id  string
	srv *Server
	log *slog.Logger

	pauseMu sync.Mutex
	paused  bool
	resume  *sync.Cond

	// Set while processing one eval: the backend it came from (this
	// server's broker, or the leader's over RPC), acked there.
	eval    *structs.Evaluation
	token   string
	snap    *state.StateSnapshot
	backend schedulingBackend
	plans   int // plans submitted for this eval, naming each one
	// final is the eval's last status update, held back until the
	// scheduler returns so it can be written off the worker's path
	// (finish). Any other write the scheduler makes flushes it first, so
	// writes still reach raft in the order the scheduler made them.
	final *structs.Evaluation
	// finishedByPlan: the last plan's entry writes the eval's final status
	// and the leader acks it (structs.Plan.FinalEval); nothing is left to
	// write or ack.
	finishedByPlan bool
	// background: the eval came from the run loop, which finishes evals
	// in the background and may take its next eval with a plan's result.
	background bool

	// next is the eval the leader handed this worker with the result of
	// a plan that finished the previous one (run loop only): processed
	// next, instead of a dequeue round trip, or given back (nacked).
	next        *dequeued
	nextBackend schedulingBackend
	// handedNext counts the evals taken that way.
	handedNext atomic.Uint64

	// finishing is a semaphore of background finishes (run loop only).
	finishing chan struct{}

	// remoteProcessed counts evals this worker took from another server's
	// broker (a follower scheduling for the leader).
	remoteProcessed atomic.Uint64
}

func newWorker(srv *Server, id string) *Worker {
	w := &Worker{id: id, srv: srv, log: srv.log.With("worker", id), finishing: make(chan struct{}, maxFinishing)}
	w.resume = sync.NewCond(&w.pauseMu)
	return w
}

// ID names the worker in logs and eval timelines.
func (w *Worker) ID() string { return w.id }

// SetPaused pauses or resumes dequeuing (the leader pauses most workers to
// leave room for the plan applier).
func (w *Worker) SetPaused(p bool) {
	w.pauseMu.Lock()
	w.paused = p
	w.pauseMu.Unlock()
	w.resume.Broadcast()
}

func (w *Worker) waitUnpaused(ctx context.Context) {
	w.pauseMu.Lock()
	defer w.pauseMu.Unlock()
	for w.paused && ctx.Err() == nil {
		w.resume.Wait()
	}
}

// run dequeues and processes evals until ctx is done.
func (w *Worker) run(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { w.resume.Broadcast() })
	defer stop()
	defer w.giveBackNext()
	for ctx.Err() == nil {
		if w.isPaused() {
			w.giveBackNext()
		}
		w.waitUnpaused(ctx)
		if _, err := w.step(ctx, true); err != nil && ctx.Err() == nil {
			w.backoff(ctx)
		}
	}
}

// Step processes one ready eval, without waiting for one, to its ack or
// nack; it reports whether there was one. It is the worker's loop body,
// for a caller that drives the server step by step (Config.ManualDuties).
func (w *Worker) Step() bool {
	if w.isPaused() {
		return false
	}
	processed, _ := w.step(doneCtx, false)
	return processed
}

// step dequeues one eval, waiting until ctx is done, and processes it;
// with background set the eval is finished (status write and ack) in the
// background.
func (w *Worker) step(ctx context.Context, background bool) (bool, error) {
	if next, backend := w.next, w.nextBackend; next != nil {
		w.next, w.nextBackend = nil, nil
		w.remoteProcessed.Add(1)
		w.handedNext.Add(1)
		w.process(backend, next.eval, next.token, next.waitIndex, background)
		return true, nil
	}
	backend, err := w.srv.schedulingBackend()
	if err != nil {
		return false, err
	}
	waitStart := time.Now()
	eval, token, waitIndex, err := backend.Dequeue(ctx, w.srv.enabledSchedulers())
	if err != nil || eval == nil {
		return false, err
	}
	w.srv.metrics().WorkerDequeue.Observe(telemetry.Ms(time.Since(waitStart)))
	if _, remote := backend.(remoteBackend); remote {
		w.remoteProcessed.Add(1)
	}
	w.process(backend, eval, token, waitIndex, background)
	return true, nil
}

// giveBackNext nacks an eval handed to this worker that it will not
// process (it is paused or stopping), so another worker takes it now
// rather than after the nack timeout.
func (w *Worker) giveBackNext() {
	if next, backend := w.next, w.nextBackend; next != nil {
		w.next, w.nextBackend = nil, nil
		w.nack(backend, next.eval.ID, next.token)
	}
}

// backoff waits briefly after a failed dequeue (broker disabled: not leader).
func (w *Worker) backoff(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(100 * time.Millisecond):
	}
}

// Process handles one dequeued evaluation to its ack or nack. It is the
// synchronous step the simulator drives.
func (w *Worker) Process(eval *structs.Evaluation, token string) {
	w.process(localBackend{w.srv}, eval, token, eval.ModifyIndex, false)
}

// process schedules eval once this server's state has reached waitIndex.
func (w *Worker) process(backend schedulingBackend, eval *structs.Evaluation, token string, waitIndex uint64, background bool) {
	w.eval, w.token, w.backend, w.plans, w.final, w.finishedByPlan = eval, token, backend, 0, nil, false
	w.background = background
	defer func() { w.eval, w.token, w.snap, w.backend, w.final = nil, "", nil, nil, nil }()
	w.srv.timeline.Record(eval.ID, structs.EvalQuasiStatusScheduling, w.id, "")

	snap, err := w.srv.snapshotMinIndex(max(waitIndex, eval.ModifyIndex), workerStateWaitTimeout)
	if err != nil {
		w.log.Warn("state behind eval; nacking", "eval", eval.ID, "error", err)
		w.nack(backend, eval.ID, token)
		return
	}
	w.snap = snap
	if err := w.invokeScheduler(eval); err != nil {
		w.log.Error("scheduler failed; nacking", "eval", eval.ID, "type", eval.Type, "error", err)
		if ferr := w.flushFinal(); ferr != nil {
			w.log.Warn("eval status write failed", "eval", eval.ID, "error", ferr)
		}
		w.nack(backend, eval.ID, token)
		return
	}
	w.finish(background)
}

// finish writes the eval's held-back final status, then acks it: the ack
// must wait for that write's commit (an acked eval whose status was lost
// would stay pending forever), but the worker need not. In the run loop
// it finishes in the background and schedules the next eval while the
// status commits; the broker keeps the job's next eval back until the
// ack, so per-job order holds.
func (w *Worker) finish(background bool) {
	final, backend, evalID, token := w.final, w.backend, w.eval.ID, w.token
	w.final = nil
	if w.finishedByPlan {
		return // the plan's entry writes the status and the leader acks
	}
	if !background {
		w.finishEval(backend, final, evalID, token)
		return
	}
	w.finishing <- struct{}{}
	w.srv.goTracked(func(context.Context) {
		defer func() { <-w.finishing }()
		w.finishEval(backend, final, evalID, token)
	})
}

func (w *Worker) finishEval(backend schedulingBackend, final *structs.Evaluation, evalID, token string) {
	if err := backend.FinishEval(final, evalID, token); err != nil {
		w.log.Warn("eval not finished; nacking", "eval", evalID, "error", err)
		w.nack(backend, evalID, token)
	}
}

// flushFinal writes a held-back status update now, before another write
// of the scheduler's (or a nack) overtakes it.
func (w *Worker) flushFinal() error {
	final := w.final
	if final == nil {
		return nil
	}
	w.final = nil
	return w.backend.UpsertEvals([]*structs.Evaluation{final}, "")
}

// invokeScheduler runs the scheduler for the eval's type. An unknown type
// is a bug in whoever wrote the eval: the eval is marked failed.
func (w *Worker) invokeScheduler(eval *structs.Evaluation) error {
	factory, ok := w.srv.schedulerFactory(eval.Type)
	if !ok {
		failed := eval.Copy()
		failed.Status = structs.EvalStatusFailed
		failed.StatusDescription = fmt.Sprintf("wrong eval type: no scheduler for type %q", eval.Type)
		failed.FailureKind = structs.EvalFailureWrongType
		return w.UpdateEval(failed)
	}
	sched := factory(w.log.With("eval", eval.ID, "job", eval.JobID), w.snap, w)
	start := time.Now()
	defer func() { w.srv.metrics().InvokeScheduler(eval.Type).Observe(telemetry.Ms(time.Since(start))) }()
	return sched.Process(eval)
}

func (w *Worker) nack(backend schedulingBackend, evalID, token string) {
	if err := backend.Nack(evalID, token); err != nil {
		w.log.Warn("nack failed", "eval", evalID, "error", err)
	}
}

// SubmitPlan sends a plan to the leader's plan queue and waits for the
// result. When part was rejected it returns a snapshot at least as new as
// the result's refresh index, for the scheduler to replan against.
func (w *Worker) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, scheduler.State, error) {
	plan.EvalID, plan.EvalToken = w.eval.ID, w.token
	plan.SnapshotIndex = w.snap.LatestIndex()
	if err := w.flushFinal(); err != nil {
		return nil, nil, err
	}
	w.plans++
	plan.ID = fmt.Sprintf("%s/plan-%d", w.eval.ID, w.plans)
	w.srv.timeline.RecordApplying(w.eval.ID, w.id, plan.ID)
	plan.FinalEval = w.prepareFinal(plan.FinalEval)
	var nextFor []string // the schedulers to take the next eval for, with the result
	if w.background && plan.FinalEval != nil {
		nextFor = w.srv.enabledSchedulers()
	}
	submitted := time.Now()
	result, next, err := w.backend.SubmitPlan(plan, nextFor)
	w.srv.metrics().PlanSubmit.Observe(telemetry.Ms(time.Since(submitted)))
	if err != nil {
		return nil, nil, err
	}
	if next != nil {
		w.next, w.nextBackend = next, w.backend
	}
	if result.EvalFinished {
		w.recordFinishedByPlan(plan.FinalEval, result.EvalFinishTime)
		return result, nil, nil
	}
	if result.RefreshIndex == 0 {
		w.srv.timeline.Record(w.eval.ID, structs.EvalQuasiStatusScheduling, w.id, "plan committed")
		return result, nil, nil
	}
	note := fmt.Sprintf("plan rejected on %d node(s); refreshing to index %d", len(result.RejectedNodes), result.RefreshIndex)
	w.srv.timeline.Record(w.eval.ID, structs.EvalQuasiStatusScheduling, w.id, note)
	snap, err := w.srv.snapshotMinIndex(result.RefreshIndex, workerStateWaitTimeout)
	if err != nil {
		return nil, nil, err
	}
	w.snap = snap
	return result, snap, nil
}

// UpdateEval records the final state of the eval being processed, with
// its timeline, so the lifecycle survives the leader. The write is held
// back until the scheduler returns (finish), then committed before the
// eval is acked.
func (w *Worker) UpdateEval(eval *structs.Evaluation) error {
	if err := w.flushFinal(); err != nil {
		return err
	}
	e := eval.Copy()
	e.SnapshotIndex = w.snap.LatestIndex()
	e.ModifyTime = w.srv.now().UnixNano()
	w.srv.timeline.Record(e.ID, e.Status, w.id, e.StatusDescription)
	e.Timeline = w.srv.timeline.Entries(e.ID)
	w.final = e
	return nil
}

// prepareFinal stamps a plan's final eval (the scheduler built it for
// this plan alone) as UpdateEval would, with the final status appended to
// its timeline (the leader sets that step's time to the entry's), but
// records nothing yet: the plan may not commit in full, and then the
// scheduler goes on.
func (w *Worker) prepareFinal(e *structs.Evaluation) *structs.Evaluation {
	if e == nil {
		return nil
	}
	e.SnapshotIndex = w.snap.LatestIndex()
	e.ModifyTime = w.srv.now().UnixNano()
	step := &structs.EvalTimelineEntry{Status: e.Status, Time: e.ModifyTime, Worker: w.id, Note: e.StatusDescription}
	e.Timeline = append(w.srv.timeline.Entries(e.ID), step)
	return e
}

// recordFinishedByPlan records on this server's live timeline the final
// step the plan's entry stored, at the same time, so the two agree.
func (w *Worker) recordFinishedByPlan(final *structs.Evaluation, at int64) {
	w.finishedByPlan = true
	w.srv.timeline.RecordAt(final.ID, final.Status, w.id, final.StatusDescription, at)
}

// CreateEval writes a follow-up eval (blocked, delayed or rolling). The
// FSM hands it to the broker or the blocked tracker.
func (w *Worker) CreateEval(eval *structs.Evaluation) error {
	if err := w.flushFinal(); err != nil {
		return err
	}
	e := eval.Copy()
	e.SnapshotIndex = w.snap.LatestIndex()
	now := w.srv.now().UnixNano()
	if e.CreateTime == 0 {
		e.CreateTime = now
	}
	e.ModifyTime = now
	w.srv.timeline.Record(e.ID, e.Status, "", "created by "+w.id+" for "+w.eval.ID)
	return w.backend.UpsertEvals([]*structs.Evaluation{e}, "")
}

// ReblockEval re-blocks the blocked eval being processed: its status stays
// blocked (with the new class eligibility) and the tracker takes it back
// under this worker's token, so an unblock racing the ack is not lost.
func (w *Worker) ReblockEval(eval *structs.Evaluation) error {
	if err := w.flushFinal(); err != nil {
		return err
	}
	e := eval.Copy()
	e.SnapshotIndex = w.snap.LatestIndex()
	e.ModifyTime = w.srv.now().UnixNano()
	w.srv.timeline.Record(e.ID, structs.EvalStatusBlocked, w.id, "reblocked")
	return w.backend.UpsertEvals([]*structs.Evaluation{e}, w.token)
}

func (w *Worker) isPaused() bool {
	w.pauseMu.Lock()
	defer w.pauseMu.Unlock()
	return w.paused
}
