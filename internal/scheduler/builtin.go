package scheduler

import (
	"log/slog"
	"time"
)

// BuiltinSchedulers maps each eval type a worker handles to its scheduler.
var BuiltinSchedulers = BuiltinSchedulersWithClock(time.Now)

// BuiltinSchedulersWithClock is BuiltinSchedulers with an injected clock,
// used for reschedule decisions and the times stamped on allocs and
// follow-up evals (tests and the simulator pass a fake one).
func BuiltinSchedulersWithClock(now func() time.Time) map[string]Factory {
	return map[string]Factory{
		"service": func(log *slog.Logger, st State, p Planner) Scheduler {
			return newGenericScheduler(log, st, p, false, now)
		},
		"batch": func(log *slog.Logger, st State, p Planner) Scheduler {
			return newGenericScheduler(log, st, p, true, now)
		},
		"system": func(log *slog.Logger, st State, p Planner) Scheduler {
			return newSystemScheduler(log, st, p, false, now)
		},
		"sysbatch": func(log *slog.Logger, st State, p Planner) Scheduler {
			return newSystemScheduler(log, st, p, true, now)
		},
	}
}
