package server

import (
	"sync"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// maxTrackedTimelines bounds the in-memory timelines; the oldest are
// dropped first (a finished eval's timeline is also stored in the eval).
const maxTrackedTimelines = 50_000

// Timeline records, per evaluation, when it entered each status and
// quasi-status on this server. Workers store it in the eval when they
// write its final status; GET /v1/evaluation/:id shows live ones.
type Timeline struct {
	clk   clock.Clock
	mu    sync.Mutex
	byID  map[string][]*structs.EvalTimelineEntry
	order []string
	// onStep, when set, sees each recorded step (outside the lock).
	onStep StepObserver
}

// StepObserver sees each recorded step and the step it ended (nil for an
// eval's first step, or when the step only names the worker of the
// current one).
type StepObserver func(evalID string, step, ended *structs.EvalTimelineEntry)

// SetStepObserver installs a function called with every recorded step.
func (t *Timeline) SetStepObserver(fn StepObserver) {
	t.mu.Lock()
	t.onStep = fn
	t.mu.Unlock()
}

// NewTimeline returns an empty timeline recorder.
func NewTimeline(clk clock.Clock) *Timeline {
	return &Timeline{clk: clk, byID: map[string][]*structs.EvalTimelineEntry{}}
}

// Record appends a step for an eval, skipping exact repeats of the last one.
func (t *Timeline) Record(evalID, status, worker, note string) {
	t.recordStep(evalID, structs.EvalTimelineEntry{Status: status, Worker: worker, Note: note})
}

// RecordAt appends a step that happened at a known time (unix nanos):
// the final status a plan's entry wrote, stamped by the leader.
func (t *Timeline) RecordAt(evalID, status, worker, note string, at int64) {
	t.recordStep(evalID, structs.EvalTimelineEntry{Status: status, Worker: worker, Note: note, Time: at})
}

// RecordApplying records that a worker's plan entered the plan applier;
// the step names the plan.
func (t *Timeline) RecordApplying(evalID, worker, planID string) {
	t.recordStep(evalID, structs.EvalTimelineEntry{Status: structs.EvalQuasiStatusApplying, Worker: worker, PlanID: planID})
}

func (t *Timeline) recordStep(evalID string, e structs.EvalTimelineEntry) {
	step, ended, observe := t.record(evalID, e)
	if step != nil && observe != nil {
		observe(evalID, step, ended)
	}
}

// record stores the step and returns it (nil for a repeat) and the step it
// ended, with the observer to tell.
func (t *Timeline) record(evalID string, e structs.EvalTimelineEntry) (step, ended *structs.EvalTimelineEntry, observe StepObserver) {
	status, worker, note := e.Status, e.Worker, e.Note
	t.mu.Lock()
	defer t.mu.Unlock()
	entries, known := t.byID[evalID]
	if n := len(entries); n > 0 && entries[n-1].Status == status {
		last := entries[n-1]
		if last.Worker == worker && last.Note == note && last.PlanID == e.PlanID {
			return nil, nil, nil
		}
		if last.Worker == "" && last.Note == "" {
			// The broker saw the step first; the worker names who took it.
			entries[n-1] = &structs.EvalTimelineEntry{Status: status, Time: last.Time, Worker: worker, Note: note, PlanID: e.PlanID}
			return entries[n-1].Copy(), nil, t.onStep
		}
	}
	if !known {
		t.order = append(t.order, evalID)
		t.evictOldest()
	}
	at := e.Time
	if at == 0 {
		at = t.clk.Now().UnixNano()
	}
	step = &structs.EvalTimelineEntry{Status: status, Time: at, Worker: worker, Note: note, PlanID: e.PlanID}
	if n := len(entries); n > 0 && entries[n-1].Status != status {
		ended = entries[n-1].Copy()
	}
	t.byID[evalID] = append(entries, step)
	return step.Copy(), ended, t.onStep
}

func (t *Timeline) evictOldest() {
	for len(t.order) > maxTrackedTimelines {
		delete(t.byID, t.order[0])
		t.order = t.order[1:]
	}
}

// Entries returns a copy of an eval's recorded steps.
func (t *Timeline) Entries(evalID string) []*structs.EvalTimelineEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*structs.EvalTimelineEntry, 0, len(t.byID[evalID]))
	for _, e := range t.byID[evalID] {
		out = append(out, e.Copy())
	}
	return out
}

// Merge returns the stored timeline extended with live steps recorded after
// its last entry.
func (t *Timeline) Merge(stored []*structs.EvalTimelineEntry, evalID string) []*structs.EvalTimelineEntry {
	live := t.Entries(evalID)
	if len(stored) == 0 {
		return live
	}
	last := stored[len(stored)-1].Time
	out := append([]*structs.EvalTimelineEntry(nil), stored...)
	for _, e := range live {
		if e.Time > last {
			out = append(out, e)
		}
	}
	return out
}

// EvalTimeline returns an eval's lifecycle: what was stored with it plus
// the live steps this server has seen since.
func (s *Server) EvalTimeline(e *structs.Evaluation) []*structs.EvalTimelineEntry {
	return s.timeline.Merge(e.Timeline, e.ID)
}
