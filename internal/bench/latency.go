package bench

import (
	"slices"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// EvalPhases splits completed evals' latency by where the time went, from
// the timeline each eval stores with its final status: Wait is creation
// to a worker first taking it (the broker's queue), Scheduling the time
// workers held it computing plans, Applying the time its plans spent in
// the plan queue and applier. Each is a p50 and a p99 over the evals, so
// a long eval p99 shows whether queueing or processing made it.
type EvalPhases struct {
	WaitP50, WaitP99             time.Duration
	SchedulingP50, SchedulingP99 time.Duration
	ApplyingP50, ApplyingP99     time.Duration
}

func evalPhases(evals []*structs.Evaluation) EvalPhases {
	var wait, sched, apply []time.Duration
	for _, e := range evals {
		if e == nil || e.Status != structs.EvalStatusComplete {
			continue
		}
		w, s, a, ok := phasesOf(e)
		if ok {
			wait, sched, apply = append(wait, w), append(sched, s), append(apply, a)
		}
	}
	var p EvalPhases
	p.WaitP50, p.WaitP99 = percentiles(wait)
	p.SchedulingP50, p.SchedulingP99 = percentiles(sched)
	p.ApplyingP50, p.ApplyingP99 = percentiles(apply)
	return p
}

// phasesOf sums an eval's timeline steps: each step lasts until the next
// one (the last until ModifyTime). Time before the first scheduling step
// is waiting, whatever the steps (pending, blocked) say. An eval that its
// plan's entry finished (structs.Plan.FinalEval) completes at that entry's
// time, when the leader accepted the plan: its applying phase excludes the
// raft commit.
func phasesOf(e *structs.Evaluation) (wait, sched, apply time.Duration, ok bool) {
	steps := e.Timeline
	first := slices.IndexFunc(steps, func(s *structs.EvalTimelineEntry) bool {
		return s.Status == structs.EvalQuasiStatusScheduling
	})
	if first < 0 {
		return 0, 0, 0, false
	}
	wait = time.Duration(steps[first].Time - e.CreateTime)
	for i := first; i < len(steps); i++ {
		end := e.ModifyTime
		if i+1 < len(steps) {
			end = steps[i+1].Time
		}
		d := time.Duration(end - steps[i].Time)
		switch steps[i].Status {
		case structs.EvalQuasiStatusScheduling:
			sched += d
		case structs.EvalQuasiStatusApplying:
			apply += d
		}
	}
	return wait, sched, apply, true
}

// percentiles returns the p50 and p99 of ds (sorting it).
func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	slices.Sort(ds)
	at := func(q float64) time.Duration { return ds[min(len(ds)-1, int(q*float64(len(ds))))] }
	return at(0.50), at(0.99)
}
