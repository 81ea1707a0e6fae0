package state

import (
	"fmt"
	"slices"

	"github.com/drover-project/drover/internal/structs"
)

// PromoteDeployment marks the canaries of the named groups (or all groups)
// promoted, so the scheduler replaces the old allocs, and writes the
// request's eval in the same transaction. Promoting a group whose canaries
// are not all healthy is an error: it would roll out an unproven version.
// The promoted canaries stop being canaries (as in Nomad), so their
// clients advertise the service's tags instead of its canary_tags.
func (s *StateStore) PromoteDeployment(index uint64, req *structs.DeploymentPromoteRequest) error {
	return s.write(index, func(tx *writeTxn) error {
		d, err := activeDeployment(tx, req.DeploymentID)
		if err != nil {
			return err
		}
		c := d.Copy()
		promoted, err := promoteGroups(c, req)
		if err != nil {
			return err
		}
		if err := tx.clearCanaries(c.ID, promoted, index); err != nil {
			return err
		}
		c.ModifyIndex = index
		if req.UpdatedAt != 0 {
			c.ModifyTime = req.UpdatedAt
		}
		return tx.insert(TableDeployment, c)
	}, evalsOf(req.Eval)...)
}

// clearCanaries drops the canary mark of the deployment's allocs in the
// promoted groups, moving AllocModifyIndex so their clients see it.
func (tx *writeTxn) clearCanaries(deploymentID string, groups []string, index uint64) error {
	allocs, err := list[structs.Allocation](tx.Txn, nil, TableAllocs, "deployment", deploymentID)
	if err != nil {
		return err
	}
	for _, a := range allocs {
		if a.DeploymentStatus == nil || !a.DeploymentStatus.Canary || !slices.Contains(groups, a.TaskGroup) {
			continue
		}
		c := a.Copy()
		c.DeploymentStatus.Canary = false
		c.ModifyIndex, c.AllocModifyIndex = index, index
		if err := tx.storeAlloc(c, a); err != nil {
			return err
		}
	}
	return nil
}

// promoteGroups marks the requested groups promoted and returns them.
func promoteGroups(d *structs.Deployment, req *structs.DeploymentPromoteRequest) ([]string, error) {
	names := req.Groups
	if req.All {
		names = nil
		for name, g := range d.TaskGroups {
			if g.DesiredCanaries > 0 {
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("deployment %s has no canaries to promote", d.ID)
	}
	for _, name := range names {
		g := d.TaskGroups[name]
		if g == nil {
			return nil, fmt.Errorf("deployment %s has no task group %q", d.ID, name)
		}
		if g.DesiredCanaries > 0 && g.HealthyAllocs < g.DesiredCanaries {
			return nil, fmt.Errorf("task group %q has %d of %d canaries healthy", name, g.HealthyAllocs, g.DesiredCanaries)
		}
		g.Promoted = true
	}
	return names, nil
}

func evalsOf(e *structs.Evaluation) []*structs.Evaluation {
	if e == nil {
		return nil
	}
	return []*structs.Evaluation{e}
}

// activeDeployment reads the deployment an operator's write names: an
// error when it does not exist (not found) or has finished.
func activeDeployment(tx *writeTxn, id string) (*structs.Deployment, error) {
	d, err := deploymentByID(tx.Txn, nil, id)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, errNotFoundf("deployment %s", id)
	}
	if !d.Active() {
		return nil, fmt.Errorf("deployment %s is %s, not active", d.ID, d.Status)
	}
	return d, nil
}
