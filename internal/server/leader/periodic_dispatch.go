package leader

import (
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/server/periodic"
	"github.com/drover-project/drover/internal/structs"
)

// The periodic dispatcher launches periodic jobs on the leader (the
// "periodic-dispatch" duty): it tracks the next launch of every periodic
// parent, wakes at the earliest one (on the injected clock) or when jobs
// change, and registers each due child with its periodic-job eval in one
// raft entry.

// periodicDispatchStep launches every parent (read under ws) whose launch
// fell due; it returns whether it launched any and the earliest next
// launch.
func (l *Leader) periodicDispatchStep(ws memdb.WatchSet, launched map[structs.NamespacedID]time.Time) (bool, time.Time, error) {
	parents, err := l.periodicParents(ws)
	if err != nil {
		return false, time.Time{}, err
	}
	now := l.now()
	var earliest time.Time
	any := false
	for _, p := range parents {
		next, wrote := l.launchIfDue(p, launched, now)
		any = any || wrote
		if !next.IsZero() && (earliest.IsZero() || next.Before(earliest)) {
			earliest = next
		}
	}
	return any, earliest, nil
}

// periodicParents lists the enabled, running periodic parents. It reads
// the periodic index, so ws does not fire on writes of other jobs: the
// dispatcher used to list every job on every job write, which cost 4% of
// the CPU of 1000 job registrations on 3 servers.
func (l *Leader) periodicParents(ws memdb.WatchSet) ([]*structs.Job, error) {
	jobs, err := l.srv.State().PeriodicJobs(ws)
	if err != nil {
		return nil, err
	}
	var out []*structs.Job
	for _, j := range jobs {
		if j.IsPeriodic() && !j.Stop {
			out = append(out, j)
		}
	}
	return out, nil
}

// launchIfDue launches the parent if a launch fell due since its last one,
// and returns its next launch time and whether it wrote a child. A parent first seen (new job, or a
// new leader) counts from its submit time, and of several missed launches
// only the latest runs, once: a child that exists already is not launched
// again, so leader changes neither lose nor repeat a launch.
func (l *Leader) launchIfDue(p *structs.Job, launched map[structs.NamespacedID]time.Time, now time.Time) (time.Time, bool) {
	key := p.NamespacedID()
	last, seen := launched[key]
	if !seen {
		last = time.Unix(0, p.SubmitTime)
	}
	due, err := latestDue(p.Periodic, last, now)
	if err != nil {
		return time.Time{}, false
	}
	wrote := false
	if !due.IsZero() {
		launched[key] = due
		resp, err := l.LaunchPeriodic(p, due)
		if err != nil {
			l.log.Warn("periodic launch failed", "job", p.ID, "launch", due, "error", err)
		}
		wrote, last = resp != nil, due
	} else if !seen {
		launched[key] = last
	}
	next, _ := periodic.Next(p.Periodic, last)
	return next, wrote
}

// latestDue returns the latest launch after last and at or before now;
// zero when none is due. Next is non-decreasing in its argument, so after
// the common case (one launch due) a binary search over (last, now] finds
// the latest launch in at most 64 steps, however many were missed.
func latestDue(p *structs.PeriodicConfig, last, now time.Time) (time.Time, error) {
	due, err := periodic.Next(p, last)
	if err != nil || due.IsZero() || due.After(now) {
		return time.Time{}, err
	}
	if next, err := periodic.Next(p, due); err != nil || next.IsZero() || next.After(now) {
		return due, err
	}
	// Next(lo) is at or before now; Next(hi) is after now (or none).
	lo, hi := due, now
	for hi.Sub(lo) > 1 {
		mid := lo.Add(hi.Sub(lo) / 2)
		next, err := periodic.Next(p, mid)
		if err != nil {
			return time.Time{}, err
		}
		if !next.IsZero() && !next.After(now) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return periodic.Next(p, lo)
}

// LaunchPeriodic registers the child launched at t with its periodic-job
// eval, unless prohibit_overlap holds it back because a child still runs
// (then it returns nil).
func (l *Leader) LaunchPeriodic(parent *structs.Job, t time.Time) (*structs.JobRegisterResponse, error) {
	if parent.Periodic.ProhibitOverlap {
		running, err := l.childRunning(parent)
		if err != nil || running {
			return nil, err
		}
	}
	return l.ForcePeriodic(parent, t)
}

// ForcePeriodic registers the child launched at t with its periodic-job
// eval whatever prohibit_overlap says: `job periodic force` runs the job
// "even if it violates the job's prohibit_overlap setting" (Nomad's
// docs). It returns nil when the child exists already (launched this
// second).
func (l *Leader) ForcePeriodic(parent *structs.Job, t time.Time) (*structs.JobRegisterResponse, error) {
	child := periodic.Child(parent, t)
	if existing, err := l.srv.State().JobByID(nil, child.Namespace, child.ID); err != nil || existing != nil {
		return nil, err // launched already (e.g. before a leader change)
	}
	eval := l.srv.NewJobEval(child, structs.EvalTriggerPeriodicJob)
	index, err := l.srv.Apply(structs.JobRegisterRequestType, &structs.JobRegisterRequest{
		Job: child, Eval: eval, SubmitTime: l.now().UnixNano(),
	})
	if err != nil {
		return nil, err
	}
	return &structs.JobRegisterResponse{EvalID: eval.ID, EvalCreateIndex: index, JobModifyIndex: index, WriteMeta: structs.WriteMeta{Index: index}}, nil
}

// childRunning reports whether any child of the parent is not dead.
func (l *Leader) childRunning(parent *structs.Job) (bool, error) {
	jobs, err := l.srv.State().Jobs(nil, parent.Namespace)
	if err != nil {
		return false, err
	}
	for _, j := range jobs {
		if j.ParentID == parent.ID && j.Status != structs.JobStatusDead {
			return true, nil
		}
	}
	return false, nil
}
