package state

import (
	"fmt"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// UpdateAllocsFromClient applies client reports. Only the client's fields
// are taken from each update: client status and description, task states,
// deployment health and network status; everything else stays as the server wrote it.
// ModifyIndex moves but AllocModifyIndex does not, since the server's
// intent did not change. Allocs unknown to the store (already garbage
// collected) are skipped.
func (s *StateStore) UpdateAllocsFromClient(index uint64, allocs []*structs.Allocation, evals ...*structs.Evaluation) error {
	return s.write(index, func(tx *writeTxn) error {
		for _, u := range allocs {
			if err := tx.updateAllocFromClient(u); err != nil {
				return err
			}
		}
		return nil
	}, evals...)
}

func (tx *writeTxn) updateAllocFromClient(u *structs.Allocation) error {
	existing, err := tx.allocByID(u.ID)
	if err != nil || existing == nil {
		return err
	}
	c := modifiedAlloc(existing)
	if u.ClientStatus != "" {
		c.ClientStatus = u.ClientStatus
		c.ClientDescription = u.ClientDescription
	}
	if u.TaskStates != nil {
		c.TaskStates = copyTaskStates(u.TaskStates)
	}
	if u.DeploymentStatus != nil {
		c.DeploymentStatus = clientHealth(existing.DeploymentStatus, u.DeploymentStatus, tx.index)
	}
	if u.NetworkStatus != nil {
		c.NetworkStatus = u.NetworkStatus.Copy()
	}
	if u.ModifyTime != 0 {
		c.ModifyTime = u.ModifyTime
	}
	c.ModifyIndex = tx.index
	if err := tx.countHealth(existing, c); err != nil {
		return err
	}
	return tx.storeAlloc(c, existing)
}

// clientHealth takes the health fields from the client's report and keeps
// Canary, which is the server's.
func clientHealth(stored, reported *structs.AllocDeploymentStatus, index uint64) *structs.AllocDeploymentStatus {
	ds := &structs.AllocDeploymentStatus{}
	if stored != nil {
		ds.Canary = stored.Canary
	}
	ds.Healthy = copyBool(reported.Healthy)
	ds.Timestamp = reported.Timestamp
	ds.ModifyIndex = index
	return ds
}

func copyBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}

// UpdateAllocsDesiredTransitions merges desired transitions (drain
// migration, forced reschedule) into allocs and writes the evals that act
// on them, in one transaction. Only the transition flags an update sets
// are changed. Unknown allocs are skipped.
func (s *StateStore) UpdateAllocsDesiredTransitions(index uint64, allocs map[string]*structs.DesiredTransition, evals []*structs.Evaluation) error {
	return s.write(index, func(tx *writeTxn) error {
		for id, t := range allocs {
			if err := tx.updateDesiredTransition(id, t); err != nil {
				return err
			}
		}
		return tx.upsertEvals(evals)
	})
}

func (tx *writeTxn) updateDesiredTransition(id string, t *structs.DesiredTransition) error {
	existing, err := tx.allocByID(id)
	if err != nil || existing == nil || t == nil {
		return err
	}
	c := modifiedAlloc(existing)
	mergeTransition(&c.DesiredTransition, t)
	// A transition is the servers' change, so AllocModifyIndex moves too
	// (as in Nomad): the client's pull lists allocs by it, and a
	// no-shutdown-delay stop of an alloc already draining must reach it.
	c.ModifyIndex, c.AllocModifyIndex = tx.index, tx.index
	return tx.storeAlloc(c, existing)
}

func mergeTransition(dst, src *structs.DesiredTransition) {
	if src.Migrate != nil {
		dst.Migrate = copyBool(src.Migrate)
	}
	if src.Reschedule != nil {
		dst.Reschedule = copyBool(src.Reschedule)
	}
	if src.ForceReschedule != nil {
		dst.ForceReschedule = copyBool(src.ForceReschedule)
	}
	if src.NoShutdownDelay != nil {
		dst.NoShutdownDelay = copyBool(src.NoShutdownDelay)
	}
}

// SetDeploymentAllocHealth records the health an operator set by hand for
// a deployment's allocs (`update { health_check = "manual" }`), through the
// same path as a client's health report (so the deployment's counters
// move the same way), and writes the request's eval in the same
// transaction. The deployment must be active and every alloc must be one
// of its own: anything else is an error and nothing is written.
func (s *StateStore) SetDeploymentAllocHealth(index uint64, req *structs.DeploymentAllocHealthRequest) error {
	return s.write(index, func(tx *writeTxn) error {
		d, err := activeDeployment(tx, req.DeploymentID)
		if err != nil {
			return err
		}
		at := time.Unix(0, req.UpdatedAt).UTC()
		set := func(ids []string, healthy bool) error {
			for _, id := range ids {
				a, err := tx.allocByID(id)
				if err != nil {
					return err
				}
				if a == nil || a.DeploymentID != d.ID {
					return fmt.Errorf("allocation %s is not part of deployment %s", id, d.ID)
				}
				h := healthy
				u := &structs.Allocation{ID: id, ModifyTime: req.UpdatedAt,
					DeploymentStatus: &structs.AllocDeploymentStatus{Healthy: &h, Timestamp: at}}
				if err := tx.updateAllocFromClient(u); err != nil {
					return err
				}
			}
			return nil
		}
		if err := set(req.HealthyAllocationIDs, true); err != nil {
			return err
		}
		return set(req.UnhealthyAllocationIDs, false)
	}, evalsOf(req.Eval)...)
}
