package state

import (
	"github.com/drover-project/drover/internal/structs"
)

// The store keeps each deployment's per-group counters in step with the
// allocs, so that they have exactly one writer: placements are counted on
// server alloc writes, health on client reports.

// countPlacement counts c as placed in its deployment if it just joined it.
func (tx *writeTxn) countPlacement(c, existing *structs.Allocation) error {
	if c.DeploymentID == "" || (existing != nil && existing.DeploymentID == c.DeploymentID) {
		return nil
	}
	return tx.adjustDeploymentGroup(c.DeploymentID, c.TaskGroup, func(st *structs.DeploymentState) {
		st.PlacedAllocs++
	})
}

// allocHealth is an alloc's health as the deployment counts it.
type allocHealth int

const (
	healthUnset allocHealth = iota
	healthHealthy
	healthUnhealthy
)

func healthOf(ds *structs.AllocDeploymentStatus) allocHealth {
	switch {
	case ds == nil || ds.Healthy == nil:
		return healthUnset
	case *ds.Healthy:
		return healthHealthy
	}
	return healthUnhealthy
}

// countHealth moves the alloc between the deployment's health counters when
// a client report changed its health. A newly healthy alloc is progress, so
// it also pushes the group's progress deadline out.
func (tx *writeTxn) countHealth(before, after *structs.Allocation) error {
	was, is := healthOf(before.DeploymentStatus), healthOf(after.DeploymentStatus)
	if after.DeploymentID == "" || was == is {
		return nil
	}
	return tx.adjustDeploymentGroup(after.DeploymentID, after.TaskGroup, func(st *structs.DeploymentState) {
		addHealth(st, was, -1)
		addHealth(st, is, +1)
		if is == healthHealthy && st.ProgressDeadline > 0 {
			by := after.DeploymentStatus.Timestamp.Add(st.ProgressDeadline)
			if by.After(st.RequireProgressBy) {
				st.RequireProgressBy = by
			}
		}
	})
}

func addHealth(st *structs.DeploymentState, h allocHealth, delta int) {
	switch h {
	case healthHealthy:
		st.HealthyAllocs += delta
	case healthUnhealthy:
		st.UnhealthyAllocs += delta
	}
}

// adjustDeploymentGroup applies change to a copy of one group of a
// deployment. A deployment or group that no longer exists is skipped: the
// counters only matter while the deployment does.
func (tx *writeTxn) adjustDeploymentGroup(id, group string, change func(*structs.DeploymentState)) error {
	d, err := deploymentByID(tx.Txn, nil, id)
	if err != nil || d == nil || d.TaskGroups[group] == nil {
		return err
	}
	c := d.Copy()
	change(c.TaskGroups[group])
	c.ModifyIndex = tx.index
	return tx.insert(TableDeployment, c)
}
