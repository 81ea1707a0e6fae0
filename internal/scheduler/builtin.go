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
	return BuiltinSchedulersWith(now, nil)
}

// BuiltinSchedulersWith is BuiltinSchedulersWithClock with an injected
// source for the IDs the schedulers make (allocations, follow-up evals,
// deployments); nil means random UUIDs. The simulator passes a
// deterministic source so the same seed gives the same history.
func BuiltinSchedulersWith(now func() time.Time, ids func() string) map[string]Factory {
	generic := func(batch bool) Factory {
		return func(log *slog.Logger, st State, p Planner) Scheduler {
			s := newGenericScheduler(log, st, p, batch, now)
			s.ids = ids
			return s
		}
	}
	system := func(sysbatch bool) Factory {
		return func(log *slog.Logger, st State, p Planner) Scheduler {
			s := newSystemScheduler(log, st, p, sysbatch, now)
			s.ids = ids
			return s
		}
	}
	return map[string]Factory{
		"service": generic(false), "batch": generic(true),
		"system": system(false), "sysbatch": system(true),
	}
}
