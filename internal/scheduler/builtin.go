package scheduler

import (
	"log/slog"
	"time"
)

// Deps are what the built-in schedulers take from their caller.
type Deps struct {
	// Now is the clock for reschedule decisions and the times stamped on
	// allocs and follow-up evals; nil means time.Now.
	Now func() time.Time
	// NewID makes the IDs the schedulers create (allocations, follow-up
	// evals, deployments); nil means random UUIDs. The simulator passes a
	// deterministic source so the same seed gives the same history.
	NewID func() string
	// Stopwatch starts a measurement of how long a placement took
	// (AllocMetric.AllocationTime) and returns its reading; nil means the
	// process's monotonic clock. The simulator passes one on its manual
	// clock, so its transcripts never hold a real duration.
	Stopwatch func() (elapsed func() time.Duration)
}

// realStopwatch measures on the monotonic clock: the one place the
// scheduler reads real time, when its caller injects no stopwatch.
func realStopwatch() func() time.Duration {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }
}

// Builtins maps each eval type a worker handles to its scheduler.
func Builtins(d Deps) map[string]Factory {
	now := d.Now
	if now == nil {
		now = time.Now
	}
	stopwatch := d.Stopwatch
	if stopwatch == nil {
		stopwatch = realStopwatch
	}
	memo := &candidateMemo{}
	generic := func(batch bool) Factory {
		return func(log *slog.Logger, st State, p Planner) Scheduler {
			s := newGenericScheduler(log, st, p, batch, now)
			s.ids, s.memo, s.stopwatch = d.NewID, memo, stopwatch
			return s
		}
	}
	system := func(sysbatch bool) Factory {
		return func(log *slog.Logger, st State, p Planner) Scheduler {
			s := newSystemScheduler(log, st, p, sysbatch, now)
			s.ids, s.memo, s.stopwatch = d.NewID, memo, stopwatch
			return s
		}
	}
	return map[string]Factory{
		"service": generic(false), "batch": generic(true),
		"system": system(false), "sysbatch": system(true),
	}
}
