package state

import (
	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// refreshJobStatus rewrites a job whose status no longer matches its allocs
// and evals. It writes only on an actual change, so the jobs table index
// (and blocking queries on it) move only when something visible changed.
func (tx *writeTxn) refreshJobStatus(id structs.NamespacedID) error {
	job, err := tx.jobByID(id.Namespace, id.ID)
	if err != nil || job == nil {
		return err
	}
	status := structs.JobStatusRunning
	if !tx.runsAllocStoredHere(id, job) {
		if status, err = jobStatus(tx.Txn, job, tx.evalsDeleted); err != nil {
			return err
		}
	}
	if status == job.Status {
		return nil
	}
	// A shallow copy is enough: only top-level fields change and the nested
	// objects it shares are immutable.
	c := *job
	c.Status = status
	c.ModifyIndex = tx.index
	return tx.insert(TableJobs, &c)
}

// runsAllocStoredHere reports whether jobStatus would find job running
// because of a live alloc of its incarnation that this write stored and
// that is still stored: the usual plan result places live allocs of its
// job, and then the job's allocs need no scan.
func (tx *writeTxn) runsAllocStoredHere(id structs.NamespacedID, job *structs.Job) bool {
	a := tx.liveAllocs[id]
	if a == nil || job.Stop || !allocOfJobIncarnation(a, job) {
		return false
	}
	cur, err := tx.allocByID(a.ID)
	return err == nil && cur == a
}

// jobStatus derives a job's status:
//   - stopped: dead;
//   - periodic or parameterized parent: running (it launches children);
//   - any non-terminal alloc of this incarnation of the job: running;
//   - else any non-terminal eval: pending;
//   - else dead if it had allocs or evals (or they were just GC'd), pending
//     if it never had any (registered, its first eval not yet written).
func jobStatus(txn *memdb.Txn, job *structs.Job, evalsDeleted bool) (string, error) {
	if job.Stop {
		return structs.JobStatusDead, nil
	}
	if job.IsMultiInstanceParent() {
		return structs.JobStatusRunning, nil
	}
	running, hadAllocs, err := jobAllocState(txn, job)
	if err != nil {
		return "", err
	}
	if running {
		return structs.JobStatusRunning, nil
	}
	liveEval, hadEvals, err := jobEvalState(txn, job.Namespace, job.ID)
	if err != nil {
		return "", err
	}
	if liveEval {
		return structs.JobStatusPending, nil
	}
	if hadAllocs || hadEvals || evalsDeleted {
		return structs.JobStatusDead, nil
	}
	return structs.JobStatusPending, nil
}

// jobAllocState reports whether the job has a non-terminal alloc and
// whether it has any. It stops at the first non-terminal alloc rather than
// loading them all: jobs with many allocs are written often.
func jobAllocState(txn *memdb.Txn, job *structs.Job) (running, hasAny bool, err error) {
	it, err := txn.Get(TableAllocs, "job", job.Namespace, job.ID)
	if err != nil {
		return false, false, err
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		a := raw.(*structs.Allocation)
		if !allocOfJobIncarnation(a, job) {
			continue
		}
		if !a.TerminalStatus() {
			return true, true, nil
		}
		hasAny = true
	}
	return false, hasAny, nil
}

// allocOfJobIncarnation reports whether a belongs to this incarnation of
// job: a job purged and registered again gets a new CreateIndex, and the
// allocs of the old one must not count for the new one.
func allocOfJobIncarnation(a *structs.Allocation, job *structs.Job) bool {
	return a.Job == nil || a.Job.CreateIndex == job.CreateIndex
}
