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

// Worker dequeues evaluations and runs the scheduler for each. The state
// of one eval's processing is an evalRun, the scheduler's Planner for
// that eval; the Worker keeps only what outlives an eval.
type Worker struct {
	id  string
	srv *Server
	log *slog.Logger

	pauseMu sync.Mutex
	paused  bool
	resume  *sync.Cond

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

// evalRun is one eval being processed by a worker: created when the
// worker takes the eval, passed through process, and the scheduler's
// Planner for that eval. Nothing of it outlives the eval but what release
// hands on (the held final status) and the next eval a plan's result
// brought (given to the worker).
type evalRun struct {
	w *Worker
	// The eval and the backend it came from (this server's broker, or the
	// leader's over RPC), acked or nacked there under token.
	eval    *structs.Evaluation
	token   string
	backend schedulingBackend
	snap    *state.StateSnapshot
	plans   int // plans submitted for this eval, naming each one
	// final is the eval's last status update, held back until the
	// scheduler returns so it can be written off the worker's path
	// (release). Any other write the scheduler makes flushes it first, so
	// writes still reach raft in the order the scheduler made them.
	final *structs.Evaluation
	// finishedByPlan: the last plan's entry writes the eval's final status
	// and the leader acks it (structs.Plan.FinalEval); nothing is left to
	// write or ack.
	finishedByPlan bool
	// background: the eval came from the run loop, which finishes evals
	// in the background and may take its next eval with a plan's result.
	background bool
	// next is the eval the leader handed with a plan's result that
	// finished this one, for the worker to process next.
	next *dequeued
}

// The scheduler calls back the eval's run, not the worker.
var _ scheduler.Planner = (*evalRun)(nil)

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
	w.srv.config.Metrics.WorkerDequeue.Observe(telemetry.Ms(time.Since(waitStart)))
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
		w.release(backend, next.eval.ID, next.token, nil, endGivenBack, false)
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
	r := &evalRun{w: w, eval: eval, token: token, backend: backend, background: background}
	w.srv.timeline.Record(eval.ID, structs.EvalQuasiStatusScheduling, w.id, "")
	end := r.run(waitIndex)
	if r.next != nil {
		w.next, w.nextBackend = r.next, backend
	}
	w.release(backend, eval.ID, token, r.final, end, background)
}

// run takes the eval through its scheduler and says how the worker's hold
// on it ends (release).
func (r *evalRun) run(waitIndex uint64) evalEnd {
	w, eval := r.w, r.eval
	snap, err := w.srv.snapshotMinIndex(max(waitIndex, eval.ModifyIndex), workerStateWaitTimeout)
	if err != nil {
		w.log.Warn("state behind eval; nacking", "eval", eval.ID, "error", err)
		return endFailed
	}
	r.snap = snap
	if err := r.invokeScheduler(); err != nil {
		w.log.Error("scheduler failed; nacking", "eval", eval.ID, "type", eval.Type, "error", err)
		if ferr := r.flushFinal(); ferr != nil {
			w.log.Warn("eval status write failed", "eval", eval.ID, "error", ferr)
		}
		return endFailed
	}
	if r.finishedByPlan {
		return endFinishedByPlan
	}
	return endScheduled
}

// evalEnd is how a worker's hold on an eval ends; release acts on it.
type evalEnd int

const (
	// endScheduled: the scheduler returned and no plan finished the eval.
	endScheduled evalEnd = iota
	// endFinishedByPlan: the eval's last plan carried its final status
	// and its entry writes it.
	endFinishedByPlan
	// endFailed: the state did not catch up with the eval, or the
	// scheduler failed.
	endFailed
	// endGivenBack: the eval was handed to this worker with a plan's
	// result, but the worker will not process it (paused or stopping).
	endGivenBack
)

// release is the one place that decides who acks or nacks an eval a
// worker held, and when. The rule:
//
//   - endScheduled: the worker acks, after its held final status (if any)
//     has committed (backend.FinishEval); an acked eval whose status was
//     lost would stay pending forever. A failed write nacks instead. In
//     the run loop (background) this happens off the worker's path while
//     it schedules the next eval; the broker keeps the job's next eval
//     back until the ack, so per-job order holds.
//   - endFinishedByPlan: the worker does nothing. The leader acks the eval
//     when the plan's entry commits, or nacks it if the entry fails
//     (planapply.Config.AckEval and NackEval: Server.releaseHeld).
//   - endFailed: the worker nacks at once (any held status was flushed
//     first), so another worker or a retry takes the eval.
//   - endGivenBack: the worker nacks at once, so another worker takes the
//     eval now rather than after the nack timeout.
//
// On the leader, a server that fails while its workers hold evals has them
// nacked by the leader (Server.nackHeld).
func (w *Worker) release(backend schedulingBackend, evalID, token string, final *structs.Evaluation, end evalEnd, background bool) {
	switch end {
	case endFinishedByPlan:
		return // the plan's entry writes the status and the leader acks
	case endFailed, endGivenBack:
		w.nack(backend, evalID, token)
		return
	}
	if !background {
		w.finishEval(backend, final, evalID, token)
		return
	}
	w.finishing <- struct{}{}
	w.srv.goTracked(w.id+" finishing an eval", func(context.Context) {
		defer func() { <-w.finishing }()
		w.finishEval(backend, final, evalID, token)
	})
}

// finishEval writes the eval's held-back final status, then acks it
// (endScheduled); a failure nacks it.
func (w *Worker) finishEval(backend schedulingBackend, final *structs.Evaluation, evalID, token string) {
	if err := backend.FinishEval(final, evalID, token); err != nil {
		w.log.Warn("eval not finished; nacking", "eval", evalID, "error", err)
		w.nack(backend, evalID, token)
	}
}

func (w *Worker) nack(backend schedulingBackend, evalID, token string) {
	if err := backend.Nack(evalID, token); err != nil {
		w.log.Warn("nack failed", "eval", evalID, "error", err)
	}
}

// flushFinal writes a held-back status update now, before another write
// of the scheduler's (or a nack) overtakes it.
func (r *evalRun) flushFinal() error {
	final := r.final
	if final == nil {
		return nil
	}
	r.final = nil
	return r.backend.UpsertEvals([]*structs.Evaluation{final}, "")
}

// invokeScheduler runs the scheduler for the eval's type. An unknown type
// is a bug in whoever wrote the eval: the eval is marked failed.
func (r *evalRun) invokeScheduler() error {
	w, eval := r.w, r.eval
	factory, ok := w.srv.schedulerFactory(eval.Type)
	if !ok {
		failed := eval.Copy()
		failed.Status = structs.EvalStatusFailed
		failed.StatusDescription = fmt.Sprintf("wrong eval type: no scheduler for type %q", eval.Type)
		failed.FailureKind = structs.EvalFailureWrongType
		return r.UpdateEval(failed)
	}
	sched := factory(w.log.With("eval", eval.ID, "job", eval.JobID), r.snap, r)
	start := time.Now()
	defer func() { w.srv.config.Metrics.InvokeScheduler(eval.Type).Observe(telemetry.Ms(time.Since(start))) }()
	return sched.Process(eval)
}

// SubmitPlan sends a plan to the leader's plan queue and waits for the
// result. When part was rejected it returns a snapshot at least as new as
// the result's refresh index, for the scheduler to replan against.
func (r *evalRun) SubmitPlan(plan *structs.Plan) (*structs.PlanResult, scheduler.State, error) {
	w := r.w
	plan.EvalID, plan.EvalToken = r.eval.ID, r.token
	plan.SnapshotIndex = r.snap.LatestIndex()
	if err := r.flushFinal(); err != nil {
		return nil, nil, err
	}
	r.plans++
	plan.ID = fmt.Sprintf("%s/plan-%d", r.eval.ID, r.plans)
	w.srv.timeline.RecordApplying(r.eval.ID, w.id, plan.ID)
	plan.FinalEval = r.prepareFinal(plan.FinalEval)
	var nextFor []string // the schedulers to take the next eval for, with the result
	if r.background && plan.FinalEval != nil {
		nextFor = w.srv.enabledSchedulers()
	}
	submitted := time.Now()
	result, next, err := r.backend.SubmitPlan(plan, nextFor)
	w.srv.config.Metrics.PlanSubmit.Observe(telemetry.Ms(time.Since(submitted)))
	if err != nil {
		return nil, nil, err
	}
	if next != nil {
		r.next = next
	}
	if result.EvalFinished {
		r.recordFinishedByPlan(plan.FinalEval, result.EvalFinishTime)
		return result, nil, nil
	}
	if result.RefreshIndex == 0 {
		w.srv.timeline.Record(r.eval.ID, structs.EvalQuasiStatusScheduling, w.id, "plan committed")
		return result, nil, nil
	}
	note := fmt.Sprintf("plan rejected on %d node(s); refreshing to index %d", len(result.RejectedNodes), result.RefreshIndex)
	w.srv.timeline.Record(r.eval.ID, structs.EvalQuasiStatusScheduling, w.id, note)
	snap, err := w.srv.snapshotMinIndex(result.RefreshIndex, workerStateWaitTimeout)
	if err != nil {
		return nil, nil, err
	}
	r.snap = snap
	return result, snap, nil
}

// UpdateEval records the final state of the eval being processed, with
// its timeline, so the lifecycle survives the leader. The write is held
// back until the scheduler returns (release), then committed before the
// eval is acked.
func (r *evalRun) UpdateEval(eval *structs.Evaluation) error {
	if err := r.flushFinal(); err != nil {
		return err
	}
	w := r.w
	e := eval.Copy()
	e.SnapshotIndex = r.snap.LatestIndex()
	e.ModifyTime = w.srv.now().UnixNano()
	w.srv.timeline.Record(e.ID, e.Status, w.id, e.StatusDescription)
	e.Timeline = w.srv.timeline.Entries(e.ID)
	r.final = e
	return nil
}

// prepareFinal stamps a plan's final eval (the scheduler built it for
// this plan alone) as UpdateEval would, with the final status appended to
// its timeline (the leader sets that step's time to the entry's), but
// records nothing yet: the plan may not commit in full, and then the
// scheduler goes on.
func (r *evalRun) prepareFinal(e *structs.Evaluation) *structs.Evaluation {
	if e == nil {
		return nil
	}
	w := r.w
	e.SnapshotIndex = r.snap.LatestIndex()
	e.ModifyTime = w.srv.now().UnixNano()
	step := &structs.EvalTimelineEntry{Status: e.Status, Time: e.ModifyTime, Worker: w.id, Note: e.StatusDescription}
	e.Timeline = append(w.srv.timeline.Entries(e.ID), step)
	return e
}

// recordFinishedByPlan records on this server's live timeline the final
// step the plan's entry stored, at the same time, so the two agree.
func (r *evalRun) recordFinishedByPlan(final *structs.Evaluation, at int64) {
	r.finishedByPlan = true
	r.w.srv.timeline.RecordAt(final.ID, final.Status, r.w.id, final.StatusDescription, at)
}

// CreateEval writes a follow-up eval (blocked, delayed or rolling). The
// FSM hands it to the broker or the blocked tracker.
func (r *evalRun) CreateEval(eval *structs.Evaluation) error {
	if err := r.flushFinal(); err != nil {
		return err
	}
	w := r.w
	e := eval.Copy()
	e.SnapshotIndex = r.snap.LatestIndex()
	now := w.srv.now().UnixNano()
	if e.CreateTime == 0 {
		e.CreateTime = now
	}
	e.ModifyTime = now
	w.srv.timeline.Record(e.ID, e.Status, "", "created by "+w.id+" for "+r.eval.ID)
	return r.backend.UpsertEvals([]*structs.Evaluation{e}, "")
}

// ReblockEval re-blocks the blocked eval being processed: its status stays
// blocked (with the new class eligibility) and the tracker takes it back
// under this worker's token, so an unblock racing the ack is not lost.
func (r *evalRun) ReblockEval(eval *structs.Evaluation) error {
	if err := r.flushFinal(); err != nil {
		return err
	}
	w := r.w
	e := eval.Copy()
	e.SnapshotIndex = r.snap.LatestIndex()
	e.ModifyTime = w.srv.now().UnixNano()
	w.srv.timeline.Record(e.ID, structs.EvalStatusBlocked, w.id, "reblocked")
	return r.backend.UpsertEvals([]*structs.Evaluation{e}, r.token)
}

func (w *Worker) isPaused() bool {
	w.pauseMu.Lock()
	defer w.pauseMu.Unlock()
	return w.paused
}
