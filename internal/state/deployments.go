package state

import (
	"fmt"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// UpsertDeployment inserts or replaces a deployment. The per-group alloc
// counters (placed, healthy, unhealthy) are maintained by the store from
// alloc writes; an update keeps the stored counters, so a writer holding an
// older copy of the deployment cannot roll them back. Nor can it undo what
// the status and promote writes decided since its copy was read: a
// promotion stays, and a status other than running (paused, failed,
// successful, cancelled) stays with its description.
func (s *StateStore) UpsertDeployment(index uint64, d *structs.Deployment) error {
	return s.write(index, func(tx *writeTxn) error {
		return tx.upsertDeployment(d)
	})
}

func (tx *writeTxn) upsertDeployment(d *structs.Deployment) error {
	existing, err := deploymentByID(tx.Txn, nil, d.ID)
	if err != nil {
		return err
	}
	c := d.Copy()
	c.CreateIndex, c.ModifyIndex = tx.index, tx.index
	if existing != nil {
		c.CreateIndex = existing.CreateIndex
		keepDeploymentCounters(c, existing)
		keepDeploymentDecisions(c, existing)
	}
	return tx.insert(TableDeployment, c)
}

// keepDeploymentDecisions keeps the decisions of the status and promote
// writes over a stale copy: a scheduler's plan carries the deployment as
// its snapshot had it, which may predate an operator's promote or pause
// committed meanwhile (the plan would otherwise unpromote the canaries,
// and the rollout would wait for a promotion already acknowledged).
func keepDeploymentDecisions(c, existing *structs.Deployment) {
	keptPromotion := false
	for name, st := range c.TaskGroups {
		if old := existing.TaskGroups[name]; old != nil && st != nil && old.Promoted && !st.Promoted {
			st.Promoted, keptPromotion = true, true
		}
	}
	if existing.Status != structs.DeploymentStatusRunning {
		c.Status, c.StatusDescription = existing.Status, existing.StatusDescription
	} else if keptPromotion {
		c.StatusDescription = existing.StatusDescription
	}
}

func keepDeploymentCounters(c, existing *structs.Deployment) {
	for name, st := range c.TaskGroups {
		old := existing.TaskGroups[name]
		if old == nil || st == nil {
			continue
		}
		st.PlacedAllocs, st.HealthyAllocs, st.UnhealthyAllocs = old.PlacedAllocs, old.HealthyAllocs, old.UnhealthyAllocs
		if old.RequireProgressBy.After(st.RequireProgressBy) {
			st.RequireProgressBy = old.RequireProgressBy
		}
	}
}

// UpdateDeploymentStatus changes a deployment's status and, in the same
// transaction, writes the job (e.g. an auto-revert to a stable version,
// submitted at req.Job.SubmitTime) and the eval that follow from it.
func (s *StateStore) UpdateDeploymentStatus(index uint64, req *structs.DeploymentStatusUpdateRequest) error {
	if req.DeploymentUpdate == nil {
		return fmt.Errorf("deployment status update without an update")
	}
	return s.write(index, func(tx *writeTxn) error {
		if err := tx.updateDeploymentStatus(req.DeploymentUpdate, req.UpdatedAt); err != nil {
			return err
		}
		if req.Job != nil {
			if _, err := tx.upsertJob(req.Job.SubmitTime, req.Job); err != nil {
				return err
			}
		}
		if req.Eval != nil {
			return tx.upsertEval(req.Eval)
		}
		return nil
	})
}

// updateDeploymentStatus applies one status change; updatedAt (0 to leave
// it) becomes the deployment's ModifyTime.
func (tx *writeTxn) updateDeploymentStatus(u *structs.DeploymentStatusUpdate, updatedAt int64) error {
	existing, err := deploymentByID(tx.Txn, nil, u.DeploymentID)
	if err != nil {
		return err
	}
	if existing == nil {
		return errNotFoundf("deployment %s", u.DeploymentID)
	}
	c := existing.Copy()
	c.Status, c.StatusDescription = u.Status, u.StatusDescription
	if updatedAt != 0 {
		c.ModifyTime = updatedAt
	}
	c.ModifyIndex = tx.index
	return tx.insert(TableDeployment, c)
}

// DeploymentByID returns the deployment, or nil.
func (r reader) DeploymentByID(ws memdb.WatchSet, id string) (*structs.Deployment, error) {
	return deploymentByID(r.txn(), ws, id)
}

func deploymentByID(txn *memdb.Txn, ws memdb.WatchSet, id string) (*structs.Deployment, error) {
	return first[structs.Deployment](txn, ws, TableDeployment, "id", id)
}

// Deployments returns the deployments of a namespace ("*" for all), by ID.
func (r reader) Deployments(ws memdb.WatchSet, namespace string) ([]*structs.Deployment, error) {
	return listInNamespace[structs.Deployment](r.txn(), ws, TableDeployment, namespace)
}

// RunningDeployments returns the deployments in status running, in every
// namespace. ws fires only when one of them (or the set) changes.
func (r reader) RunningDeployments(ws memdb.WatchSet) ([]*structs.Deployment, error) {
	return list[structs.Deployment](r.txn(), ws, TableDeployment, "running", true)
}

// DeploymentsByJobID returns the deployments of a job, by ID.
func (r reader) DeploymentsByJobID(ws memdb.WatchSet, namespace, jobID string) ([]*structs.Deployment, error) {
	return list[structs.Deployment](r.txn(), ws, TableDeployment, "job", namespace, jobID)
}

// LatestDeploymentByJobID returns the most recently created deployment of
// a job, or nil.
func (r reader) LatestDeploymentByJobID(ws memdb.WatchSet, namespace, jobID string) (*structs.Deployment, error) {
	all, err := r.DeploymentsByJobID(ws, namespace, jobID)
	if err != nil {
		return nil, err
	}
	var latest *structs.Deployment
	for _, d := range all {
		if latest == nil || d.CreateIndex > latest.CreateIndex {
			latest = d
		}
	}
	return latest, nil
}
