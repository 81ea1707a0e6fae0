package leader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/server/blockedevals"
	"github.com/drover-project/drover/internal/server/broker"
	"github.com/drover-project/drover/internal/server/planapply"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// fakeServer is a state store and writers that record instead of
// writing through raft.
type fakeServer struct {
	st      *state.StateStore
	mu      sync.Mutex
	upserts [][]*structs.Evaluation
	fail    error // every write fails with it
}

var _ Server = (*fakeServer)(nil)

func (f *fakeServer) State() *state.StateStore { return f.st }
func (f *fakeServer) Apply(structs.MessageType, any) (uint64, error) {
	return 0, errors.New("fake: no raft")
}
func (f *fakeServer) UpsertEvals(evals []*structs.Evaluation) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return f.fail
	}
	f.upserts = append(f.upserts, evals)
	return nil
}
func (f *fakeServer) NewEvalDeleter(string) EvalDeleter { return nil }
func (f *fakeServer) AllocsByEval([]*structs.Evaluation) (map[string][]*structs.Allocation, error) {
	return nil, nil
}
func (f *fakeServer) SetNodeStatus(string, string) error { return nil }
func (f *fakeServer) NewJobEval(job *structs.Job, trigger string) *structs.Evaluation {
	return &structs.Evaluation{ID: "eval-" + job.ID, Namespace: job.Namespace, JobID: job.ID, TriggeredBy: trigger}
}
func (f *fakeServer) ClearServerOwnedFields(*structs.Job) {}

// fakeApplier counts its steps and runs.
type fakeApplier struct{ steps, runs atomic.Int32 }

func (a *fakeApplier) Run(ctx context.Context) { a.runs.Add(1); <-ctx.Done() }
func (a *fakeApplier) Step() bool              { a.steps.Add(1); return false }

type recTimeline struct {
	mu      sync.Mutex
	records []string
}

func (t *recTimeline) Record(evalID, status, _, _ string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.records = append(t.records, evalID+":"+status)
}
func (t *recTimeline) Entries(string) []*structs.EvalTimelineEntry { return nil }

type fixture struct {
	l        *Leader
	srv      *fakeServer
	clk      *clock.Manual
	applier  *fakeApplier
	timeline *recTimeline
}

func newFixture(t *testing.T, manual bool, extra ...Duty) *fixture {
	t.Helper()
	st, err := state.NewStateStore()
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(time.Unix(1_700_000_000, 0))
	f := &fixture{srv: &fakeServer{st: st}, clk: clk, applier: &fakeApplier{}, timeline: &recTimeline{}}
	b := broker.New(broker.Config{}, clk)
	n := 0
	f.l = New(Config{
		Server: f.srv, Broker: b, Blocked: blockedevals.New(b, clk), PlanQueue: planapply.NewPlanQueue(),
		Applier: f.applier, Timeline: f.timeline, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Ctx: context.Background(), Clock: clk, NewID: func() string { n++; return "id-" + string(rune('a'+n)) },
		Rand: func(int64) int64 { return 0 }, ManualDuties: manual,
		UnblockFailedInterval: time.Minute, GCInterval: 5 * time.Minute,
		MinHeartbeatTTL: 10 * time.Second, HeartbeatGrace: 10 * time.Second,
		Extra: extra,
	})
	return f
}

// The stepped list is the duty table's, in its order: the leader's own
// duties, then the supplied ones that have a step; a Loop duty without a
// step and a Background duty are not stepped.
func TestDutySteps_AreTheTable(t *testing.T) {
	f := newFixture(t, true,
		Duty{Name: "keyring-kek", Wake: Loop(func(ctx context.Context) { <-ctx.Done() })},
		Duty{Name: "extra-stepped", Step: func(context.Context) bool { return false }, Wake: Loop(func(ctx context.Context) { <-ctx.Done() })},
		Duty{Name: "autopilot", Wake: Background(func(ctx context.Context) { <-ctx.Done() })},
	)
	var names []string
	for _, d := range f.l.DutySteps() {
		names = append(names, d.Name)
	}
	want := []string{"heartbeat-expiry", "stopped-job-blocked", "duplicate-blocked", "cancelable", "undeliverable",
		"failed-follow-up", "unblock-failed", "core-gc", "periodic-dispatch", "drainer", "deployment-watcher",
		"scheduler-config", "plan-applier", "extra-stepped"}
	if !slices.Equal(names, want) {
		t.Fatalf("DutySteps %v, want %v", names, want)
	}
}

// With manual duties only the Background duties get goroutines; the
// others wait for the caller's steps. In production every duty but the
// timer-driven heartbeat expiry gets one, and the steps do nothing.
func TestStartDuties_ManualAndProduction(t *testing.T) {
	for _, manual := range []bool{true, false} {
		var loops, background atomic.Int32
		f := newFixture(t, manual,
			Duty{Name: "loop", Wake: Loop(func(ctx context.Context) { loops.Add(1); <-ctx.Done() })},
			Duty{Name: "background", Wake: Background(func(ctx context.Context) { background.Add(1); <-ctx.Done() })},
		)
		if err := f.l.Establish(); err != nil {
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(context.Background())
		var wg wgGroup
		f.l.StartDuties(ctx, &wg)
		testutil.WaitFor(t, 5*time.Second, fmt.Sprintf("manual=%v: duties to start", manual), func() (bool, string) {
			started := background.Load() != 0 && (manual || loops.Load() != 0 && f.applier.runs.Load() != 0)
			return started, fmt.Sprintf("loop %d, background %d, applier runs %d", loops.Load(), background.Load(), f.applier.runs.Load())
		})
		if f.l.Stepping() != manual {
			t.Fatalf("manual=%v: Stepping() = %v", manual, f.l.Stepping())
		}
		for _, d := range f.l.DutySteps() {
			d.Step()
		}
		if manual && (loops.Load() != 0 || f.applier.runs.Load() != 0 || f.applier.steps.Load() != 1) {
			t.Fatalf("manual: loop ran %d, applier ran %d and stepped %d, want 0, 0, 1", loops.Load(), f.applier.runs.Load(), f.applier.steps.Load())
		}
		if !manual && f.applier.steps.Load() != 0 {
			t.Fatalf("production: a step ran the applier %d times", f.applier.steps.Load())
		}
		stop()
		wg.Wait()
		f.l.Revoke()
		if f.l.Stepping() || f.l.Active() {
			t.Fatalf("manual=%v: still active after Revoke", manual)
		}
	}
}

// One routing for written and restored evals: only a write records the
// blocking on the timeline, and only a worker's write carries a token.
func TestRoute_WrittenAndRestored(t *testing.T) {
	f := newFixture(t, true)
	if err := f.l.Establish(); err != nil {
		t.Fatal(err)
	}
	job := &structs.Job{ID: "web", Namespace: structs.DefaultNamespace, Type: structs.JobTypeService, Priority: 50}
	if err := f.srv.st.UpsertJob(1, 0, job); err != nil {
		t.Fatal(err)
	}
	ev := func(id, status string) *structs.Evaluation {
		return &structs.Evaluation{ID: id, Namespace: structs.DefaultNamespace, JobID: "web", Type: structs.JobTypeService,
			Priority: 50, Status: status, TriggeredBy: structs.EvalTriggerJobRegister}
	}
	f.l.route(ev("pending", structs.EvalStatusPending), "", restored)
	f.l.route(ev("blocked-restored", structs.EvalStatusBlocked), "", restored)
	f.l.Sink().EvalsWritten([]*structs.Evaluation{ev("blocked-written", structs.EvalStatusBlocked)}, "")
	gone := ev("blocked-gone", structs.EvalStatusBlocked)
	gone.JobID = "gone"
	f.l.Sink().EvalsWritten([]*structs.Evaluation{gone}, "")
	failed := ev("failed", structs.EvalStatusFailed)
	f.l.route(failed, "", restored)

	if st := f.l.broker.Stats(); st.TotalReady != 1 {
		t.Fatalf("broker holds %d ready evals, want the pending one", st.TotalReady)
	}
	if st := f.l.blocked.Stats(); st.TotalBlocked != 1 {
		// the tracker keeps one blocked eval per job: the newer replaced the older
		t.Fatalf("tracker holds %d blocked evals, want 1", st.TotalBlocked)
	}
	if got := f.l.stoppedJobBlocked.drain(); len(got) != 1 || got[0].ID != "blocked-gone" {
		t.Fatalf("stopped-job queue %v, want blocked-gone", got)
	}
	if got := f.l.failedEvals.drain(); len(got) != 1 || got[0].ID != "failed" {
		t.Fatalf("follow-up queue %v, want failed", got)
	}
	want := []string{"blocked-written:blocked", "blocked-gone:blocked"}
	if !slices.Equal(f.timeline.records, want) {
		t.Fatalf("timeline %v, want %v (a restore records nothing)", f.timeline.records, want)
	}
}

// A take or write of the undeliverable duty that fails backs off on the
// clock, doubling up to a bound, instead of retrying at once; a stepped
// pass (done ctx) never waits.
func TestUndeliverable_BacksOff(t *testing.T) {
	f := newFixture(t, false)
	step := f.l.undeliverableStep(f.clk)
	// The broker is disabled (not leading): every take fails at once.
	if step(doneCtx) {
		t.Fatal("a stepped pass reported progress")
	}
	if n := f.clk.Pending(); n != 0 {
		t.Fatalf("a stepped pass armed %d timers", n)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	for _, wait := range []time.Duration{retryMin, 2 * retryMin, 4 * retryMin} {
		waitsFor(t, f.clk, wait, func() { step(ctx) })
	}
	// At its bound it stays there.
	b := &backoff{clk: f.clk, min: retryMin, max: retryMax, cur: retryMax}
	waitsFor(t, f.clk, retryMax, func() { b.fail(ctx) })
	if b.cur != retryMax {
		t.Fatalf("backoff grew past its bound: %s", b.cur)
	}
}

// waitsFor runs fn and checks that it returns only once the manual clock
// has moved by wait: fn (a backoff) parks on a clock timer, and is still
// parked there a millisecond before wait.
func waitsFor(t *testing.T, clk *clock.Manual, wait time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	returned := func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	// Parked in its backoff's select (or, broken, returned at once).
	backingOff := func() bool { return testutil.Parked("leader.(*backoff).fail(", "leader.waitsFor in goroutine") }
	testutil.WaitFor(t, 10*time.Second, "fn to back off on the clock", func() bool {
		return returned() || clk.Pending() > 0 && backingOff()
	})
	if returned() {
		t.Fatalf("returned without backing off %s", wait)
	}
	// A timer that fired in Advance has made fn runnable before Advance
	// returns, so fn still parked now means it waits for more time.
	clk.Advance(wait - time.Millisecond)
	testutil.WaitFor(t, 10*time.Second, "fn to return or stay parked", func() bool { return returned() || backingOff() })
	if returned() {
		t.Fatalf("returned before its backoff of %s", wait)
	}
	clk.Advance(time.Millisecond)
	<-done
}

// wgGroup is a Group that only counts its goroutines.
type wgGroup struct{ wg sync.WaitGroup }

func (g *wgGroup) Go(_ string, fn func()) { g.wg.Go(fn) }
func (g *wgGroup) Wait()                  { g.wg.Wait() }
