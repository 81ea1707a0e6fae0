package state

import (
	"fmt"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// UpsertJob registers a job or a new version of it. The version is bumped
// only when the spec changed, so re-submitting the same job is a no-op for
// its history. submitTime is decided by the endpoint, before raft.
func (s *StateStore) UpsertJob(index uint64, submitTime int64, job *structs.Job, evals ...*structs.Evaluation) error {
	return s.write(index, func(tx *writeTxn) error {
		_, err := tx.upsertJob(submitTime, job)
		return err
	}, evals...)
}

// UpsertJobEntry applies a job register entry: the job, the source it was
// submitted as and the scaling event that made it, with its evals.
// A job in a namespace that does not exist (deleted since the endpoint
// checked) is refused with ErrNamespaceMissing and nothing is written.
func (s *StateStore) UpsertJobEntry(index uint64, req *structs.JobRegisterRequest, evals ...*structs.Evaluation) error {
	return s.write(index, func(tx *writeTxn) error {
		if ns := req.Job.Namespace; ns != structs.DefaultNamespace {
			existing, err := first[structs.Namespace](tx.Txn, nil, TableNamespaces, "id", ns)
			if err != nil {
				return err
			}
			if existing == nil {
				return fmt.Errorf("namespace %q: %w", ns, ErrNamespaceMissing)
			}
		}
		stored, err := tx.upsertJob(req.SubmitTime, req.Job)
		if err != nil {
			return err
		}
		return tx.recordJobHistory(stored, req.Submission, req.ScalingEvent)
	}, evals...)
}

// upsertJob stores a copy of job and returns the stored object.
func (tx *writeTxn) upsertJob(submitTime int64, job *structs.Job) (*structs.Job, error) {
	existing, err := tx.jobByID(job.Namespace, job.ID)
	if err != nil {
		return nil, err
	}
	c := job.Copy()
	c.SubmitTime = submitTime
	c.ModifyIndex = tx.index
	switch {
	case existing == nil:
		c.CreateIndex, c.JobModifyIndex, c.Version = tx.index, tx.index, 0
	case existing.SpecEqual(c):
		// The same version again: what was said about it (stable, its
		// tag) stays unless this write says it.
		c.CreateIndex, c.JobModifyIndex, c.Version = existing.CreateIndex, existing.JobModifyIndex, existing.Version
		c.Stable = c.Stable || existing.Stable
		if c.VersionTag == nil {
			c.VersionTag = existing.VersionTag
		}
	default:
		c.CreateIndex, c.JobModifyIndex, c.Version = existing.CreateIndex, tx.index, existing.Version+1
	}
	if c.Status, err = jobStatus(tx.Txn, c, false); err != nil {
		return nil, err
	}
	if err := tx.insert(TableJobs, c); err != nil {
		return nil, err
	}
	return c, tx.insertJobVersion(c)
}

// DeleteJob purges a job and all its versions. Its allocs and evals are
// left for garbage collection.
// JobStop is one deregister's change: purge the job, or store Stopped
// (the job's stopped version; nil when it is stopped already), optionally
// marking its live allocs to stop without their shutdown_delay.
type JobStop struct {
	Namespace, JobID string
	Purge            bool
	Stopped          *structs.Job
	SubmitTime       int64
	NoShutdownDelay  bool
}

// StopJob applies a deregister and writes its evals, in one transaction.
func (s *StateStore) StopJob(index uint64, st JobStop, evals ...*structs.Evaluation) error {
	return s.write(index, func(tx *writeTxn) error {
		if st.NoShutdownDelay {
			allocs, err := allocsByJob(tx.Txn, nil, st.Namespace, st.JobID)
			if err != nil {
				return err
			}
			yes := true
			for _, a := range allocs {
				if a.TerminalStatus() {
					continue
				}
				if err := tx.updateDesiredTransition(a.ID, &structs.DesiredTransition{NoShutdownDelay: &yes}); err != nil {
					return err
				}
			}
		}
		switch {
		case st.Purge:
			return tx.deleteJob(st.Namespace, st.JobID)
		case st.Stopped != nil:
			_, err := tx.upsertJob(st.SubmitTime, st.Stopped)
			return err
		}
		return nil
	}, evals...)
}

func (s *StateStore) DeleteJob(index uint64, namespace, jobID string, evals ...*structs.Evaluation) error {
	return s.write(index, func(tx *writeTxn) error {
		return tx.deleteJob(namespace, jobID)
	}, evals...)
}

func (tx *writeTxn) deleteJob(namespace, jobID string) error {
	job, err := tx.jobByID(namespace, jobID)
	if err != nil {
		return err
	}
	if job == nil {
		return errNotFoundf("job %s/%s", namespace, jobID)
	}
	if err := tx.remove(TableJobs, job); err != nil {
		return err
	}
	if _, err := tx.DeleteAll(TableJobVersion, "job", namespace, jobID); err != nil {
		return fmt.Errorf("job versions delete failed: %w", err)
	}
	tx.touched[TableJobVersion] = true
	return tx.deleteJobHistory(namespace, jobID)
}

// JobByID returns the job, or nil if it does not exist.
func (r reader) JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error) {
	return jobByID(r.txn(), ws, namespace, id)
}

func jobByID(txn *memdb.Txn, ws memdb.WatchSet, namespace, id string) (*structs.Job, error) {
	return first[structs.Job](txn, ws, TableJobs, "id", namespace, id)
}

// JobsByIDPrefix returns the jobs whose ID starts with prefix, sorted by
// namespace then ID. Namespace "*" searches every namespace.
func (r reader) JobsByIDPrefix(ws memdb.WatchSet, namespace, prefix string) ([]*structs.Job, error) {
	if namespace == AllNamespaces {
		return listWhere(r.txn(), ws, func(j *structs.Job) bool {
			return strings.HasPrefix(j.ID, prefix)
		}, TableJobs, "id")
	}
	return list[structs.Job](r.txn(), ws, TableJobs, "id_prefix", namespace, prefix)
}

// Jobs returns the jobs of a namespace ("*" for all), sorted by namespace
// then ID.
func (r reader) Jobs(ws memdb.WatchSet, namespace string) ([]*structs.Job, error) {
	return r.JobsByIDPrefix(ws, namespace, "")
}

// PeriodicJobs returns the jobs with an enabled periodic block, in every
// namespace. ws fires only when one of them (or the set) changes.
func (r reader) PeriodicJobs(ws memdb.WatchSet) ([]*structs.Job, error) {
	return list[structs.Job](r.txn(), ws, TableJobs, "periodic", true)
}

// JobsByStatus returns the jobs with the given status, in namespace and
// ID order. The jobs table has no status index (a job's status changes
// with its allocs, and every change rewrote the entry), so this filters
// every job, and ws fires on any job's change.
func (r reader) JobsByStatus(ws memdb.WatchSet, status string) ([]*structs.Job, error) {
	return listWhere(r.txn(), ws, func(j *structs.Job) bool { return j.Status == status }, TableJobs, "id")
}

// JobsByType returns the jobs of a scheduler type (e.g. every system job),
// in namespace and ID order. System and sysbatch jobs come from the "type"
// index; the jobs of any other type by filtering every job (ws then fires
// on any job's change).
func (r reader) JobsByType(ws memdb.WatchSet, jobType string) ([]*structs.Job, error) {
	if indexedJobType(jobType) {
		return list[structs.Job](r.txn(), ws, TableJobs, "type", jobType)
	}
	return listWhere(r.txn(), ws, func(j *structs.Job) bool { return j.Type == jobType }, TableJobs, "id")
}
