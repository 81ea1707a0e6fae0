package blockedevals

import (
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// fakeEnqueuer records every EnqueueAll call.
type fakeEnqueuer struct {
	mu    sync.Mutex
	calls []map[*structs.Evaluation]string
}

func (f *fakeEnqueuer) EnqueueAll(evals map[*structs.Evaluation]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cp := make(map[*structs.Evaluation]string, len(evals))
	for ev, tok := range evals {
		cp[ev] = tok
	}
	f.calls = append(f.calls, cp)
}

func (f *fakeEnqueuer) numCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// enqueued returns every enqueued eval ID with its token, failing the test
// if an eval was enqueued twice.
func (f *fakeEnqueuer) enqueued(t *testing.T) map[string]string {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for _, call := range f.calls {
		for ev, tok := range call {
			if _, dup := out[ev.ID]; dup {
				t.Fatalf("eval %s enqueued twice", ev.ID)
			}
			out[ev.ID] = tok
		}
	}
	return out
}

func (f *fakeEnqueuer) enqueuedIDs(t *testing.T) []string {
	t.Helper()
	var ids []string
	for id := range f.enqueued(t) {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func newTestTracker(t *testing.T) (*Tracker, *fakeEnqueuer, *clock.Manual) {
	t.Helper()
	enq := &fakeEnqueuer{}
	clk := clock.NewManual(time.Unix(1_000_000, 0))
	tr := New(enq, clk)
	tr.SetEnabled(true)
	return tr, enq, clk
}

// evalOpt customises a test eval.
type evalOpt func(*structs.Evaluation)

func withClasses(elig map[string]bool) evalOpt {
	return func(e *structs.Evaluation) { e.ClassEligibility = elig }
}
func escaped() evalOpt          { return func(e *structs.Evaluation) { e.EscapedComputedClass = true } }
func snapshot(i uint64) evalOpt { return func(e *structs.Evaluation) { e.SnapshotIndex = i } }
func created(i uint64) evalOpt  { return func(e *structs.Evaluation) { e.CreateIndex = i } }
func onNode(n string) evalOpt   { return func(e *structs.Evaluation) { e.NodeID = n } }
func trigger(tr string) evalOpt { return func(e *structs.Evaluation) { e.TriggeredBy = tr } }
func job(id string) evalOpt     { return func(e *structs.Evaluation) { e.JobID = id } }

var evalSeq int
var evalSeqMu sync.Mutex

// mkEval returns a blocked eval with a unique ID and, unless job() is
// given, its own job.
func mkEval(opts ...evalOpt) *structs.Evaluation {
	evalSeqMu.Lock()
	evalSeq++
	n := evalSeq
	evalSeqMu.Unlock()
	e := &structs.Evaluation{
		ID: fmt.Sprintf("eval-%d", n), Namespace: "default", JobID: fmt.Sprintf("job-%d", n),
		Type: "service", Status: structs.EvalStatusBlocked,
		TriggeredBy: structs.EvalTriggerQueuedAllocs,
	}
	for _, o := range opts {
		o(e)
	}
	return e
}

func ids(evals []*structs.Evaluation) []string {
	out := make([]string, 0, len(evals))
	for _, e := range evals {
		out = append(out, e.ID)
	}
	sort.Strings(out)
	return out
}

// trackedIDs lists what the tracker holds, checking its indexes agree.
func trackedIDs(t *testing.T, tr *Tracker) []string {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	s := tr.set
	if got := len(s.captured) + len(s.escaped) + countNested(s.byNode); got != len(s.byID) {
		t.Fatalf("indexes disagree: captured+escaped+perNode=%d byID=%d", got, len(s.byID))
	}
	if got := countNested(s.byJob); got != len(s.byID) {
		t.Fatalf("byJob holds %d, byID %d", got, len(s.byID))
	}
	var out []string
	for id := range s.byID {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func countNested[K comparable](m map[K]map[string]*entry) int {
	n := 0
	for _, inner := range m {
		n += len(inner)
	}
	return n
}
