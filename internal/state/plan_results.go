package state

import (
	"github.com/drover-project/drover/internal/structs"
)

// UpsertPlanResults commits the accepted part of a plan in one transaction:
// readers see all of it or none of it.
func (s *StateStore) UpsertPlanResults(index uint64, req *structs.ApplyPlanResultsRequest) error {
	return s.write(index, func(tx *writeTxn) error {
		req, err := tx.withoutGoneJob(req)
		if err != nil {
			return err
		}
		planJob, err := tx.upsertPlanJob(req.Job)
		if err != nil {
			return err
		}
		if err := tx.applyPlanDeployment(req); err != nil {
			return err
		}
		for _, diff := range req.AllocsStopped {
			if err := tx.stopAlloc(diff, req.UpdatedAt); err != nil {
				return err
			}
		}
		for _, diff := range req.AllocsPreempted {
			if err := tx.preemptAlloc(diff, req.UpdatedAt); err != nil {
				return err
			}
		}
		tx.shareGroupMetrics(req.AllocsUpdated)
		for _, a := range req.AllocsUpdated {
			if err := tx.upsertPlanAlloc(a, planJob, req.UpdatedAt); err != nil {
				return err
			}
		}
		if err := tx.upsertEvals(req.PreemptionEvals); err != nil {
			return err
		}
		return tx.upsertFinalEval(req.FinalEval)
	})
}

// upsertFinalEval writes the plan's eval with its final status, when the
// plan carries it (structs.Plan.FinalEval). It is written last, so its
// job's status is recomputed with the plan's allocs in place.
func (tx *writeTxn) upsertFinalEval(e *structs.Evaluation) error {
	if e == nil {
		return nil
	}
	return tx.upsertEval(e)
}

// upsertPlanJob writes the plan's job and returns the job to attach to the
// plan's allocs that carry none. A plan computed against an older version
// than the stored one must not roll the job back, so then it is only
// attached, not written. A plan of the stored version attaches the stored
// job: rewriting it (a deep copy, a spec comparison and a version row on
// every plan) changed nothing but could undo a newer server-side change
// such as Stable.
func (tx *writeTxn) upsertPlanJob(job *structs.Job) (*structs.Job, error) {
	if job == nil {
		return nil, nil
	}
	existing, err := tx.jobByID(job.Namespace, job.ID)
	if err != nil {
		return nil, err
	}
	switch {
	case existing != nil && existing.JobModifyIndex > job.JobModifyIndex:
		return job.Copy(), nil
	case existing != nil && existing.JobModifyIndex == job.JobModifyIndex && existing.Version == job.Version:
		return existing, nil
	}
	return tx.upsertJob(job.SubmitTime, job)
}

// applyPlanDeployment writes the plan's new or changed deployment, then
// its status updates (which may address that same deployment).
func (tx *writeTxn) applyPlanDeployment(req *structs.ApplyPlanResultsRequest) error {
	if req.Deployment != nil {
		if err := tx.upsertDeployment(req.Deployment); err != nil {
			return err
		}
	}
	for _, u := range req.DeploymentUpdates {
		if err := tx.updateDeploymentStatus(u, req.UpdatedAt); err != nil {
			return err
		}
	}
	return nil
}

// stopAlloc applies a plan's stop of an existing alloc: only the fields a
// stop decides are taken from the plan's copy, which may be stale in every
// other field. Allocs gone since the plan was made are skipped.
func (tx *writeTxn) stopAlloc(diff *structs.Allocation, updatedAt int64) error {
	return tx.changeAlloc(diff.ID, updatedAt, diff.ModifyTime, func(c *structs.Allocation) {
		c.DesiredStatus = diff.DesiredStatus
		if c.DesiredStatus == "" {
			c.DesiredStatus = structs.AllocDesiredStatusStop
		}
		c.DesiredDescription = diff.DesiredDescription
		if diff.ClientStatus != "" {
			c.ClientStatus = diff.ClientStatus // lost, decided by the scheduler
		}
		if diff.FollowupEvalID != "" {
			c.FollowupEvalID = diff.FollowupEvalID
		}
	})
}

// preemptAlloc evicts an alloc to make room for a higher-priority one.
func (tx *writeTxn) preemptAlloc(diff *structs.Allocation, updatedAt int64) error {
	return tx.changeAlloc(diff.ID, updatedAt, diff.ModifyTime, func(c *structs.Allocation) {
		c.DesiredStatus = structs.AllocDesiredStatusEvict
		c.DesiredDescription = diff.DesiredDescription
		c.PreemptedByAllocation = diff.PreemptedByAllocation
	})
}

// changeAlloc applies a server-side change to a copy of a stored alloc.
// ModifyTime is the plan's commit time, or the diff's if the plan has none.
func (tx *writeTxn) changeAlloc(id string, updatedAt, diffTime int64, change func(*structs.Allocation)) error {
	existing, err := tx.allocByID(id)
	if err != nil || existing == nil {
		return err
	}
	c := modifiedAlloc(existing)
	change(c)
	c.ModifyTime = firstNonZero(updatedAt, diffTime, c.ModifyTime)
	c.ModifyIndex, c.AllocModifyIndex = tx.index, tx.index
	return tx.storeAlloc(c, existing)
}

// upsertPlanAlloc writes a new or updated alloc of the plan, stamped with
// the plan's commit time.
func (tx *writeTxn) upsertPlanAlloc(a *structs.Allocation, planJob *structs.Job, updatedAt int64) error {
	c := tx.storedAlloc(a)
	if c.Job == nil {
		c.Job = planJob
	}
	c.ModifyTime = firstNonZero(updatedAt, c.ModifyTime)
	if c.CreateTime == 0 {
		c.CreateTime = updatedAt
	}
	if err := tx.upsertAlloc(c); err != nil {
		return err
	}
	return tx.linkReplacement(c, updatedAt)
}

// linkReplacement points the alloc a new placement replaces at its
// replacement (NextAllocation), as Nomad does: `job restart -reschedule`
// and `alloc status` follow the link, and the reconciler never replaces an
// alloc twice. Only a new alloc (created at this index) links.
func (tx *writeTxn) linkReplacement(a *structs.Allocation, updatedAt int64) error {
	if a.PreviousAllocation == "" || a.CreateIndex != tx.index {
		return nil
	}
	prev, err := tx.allocByID(a.PreviousAllocation)
	if err != nil || prev == nil || prev.NextAllocation == a.ID {
		return err
	}
	return tx.changeAlloc(prev.ID, updatedAt, 0, func(c *structs.Allocation) { c.NextAllocation = a.ID })
}

func firstNonZero(vals ...int64) int64 {
	for _, v := range vals {
		if v != 0 {
			return v
		}
	}
	return 0
}
