package state

import (
	"slices"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// UpsertAllocs writes allocations as the server decided them (plans, alloc
// stop). Fields the client owns are kept from the stored alloc, so a server
// write never undoes a client report.
//
// The store keeps its own copy of each alloc, compacted (alloc_compact.go):
// the caller's objects are never retained.
func (s *StateStore) UpsertAllocs(index uint64, allocs []*structs.Allocation, evals ...*structs.Evaluation) error {
	return s.write(index, func(tx *writeTxn) error {
		tx.shareGroupMetrics(allocs)
		for _, a := range allocs {
			if err := tx.upsertAlloc(tx.storedAlloc(a)); err != nil {
				return err
			}
		}
		return nil
	}, evals...)
}

// upsertAlloc stores c, which the caller has already copied and may modify.
func (tx *writeTxn) upsertAlloc(c *structs.Allocation) error {
	existing, err := tx.allocByID(c.ID)
	if err != nil {
		return err
	}
	c.CreateIndex = tx.index
	if c.Job, err = tx.sharedJob(c.Job); err != nil {
		return err
	}
	if existing != nil {
		keepClientAllocFields(c, existing)
	}
	if c.Job == nil {
		if c.Job, err = tx.jobByID(c.Namespace, c.JobID); err != nil {
			return err
		}
	}
	c.ModifyIndex, c.AllocModifyIndex = tx.index, tx.index
	if err := tx.countPlacement(c, existing); err != nil {
		return err
	}
	return tx.storeAlloc(c, existing)
}

// keepClientAllocFields carries the client's fields (and the creation
// stamps) of the stored alloc into a server update. The exception is the
// client status values only the server can know: lost and unknown, set when
// the node stopped reporting.
func keepClientAllocFields(c, existing *structs.Allocation) {
	c.CreateIndex = existing.CreateIndex
	if existing.CreateTime != 0 {
		c.CreateTime = existing.CreateTime
	}
	if c.ClientStatus != structs.AllocClientStatusLost && c.ClientStatus != structs.AllocClientStatusUnknown {
		c.ClientStatus, c.ClientDescription = existing.ClientStatus, existing.ClientDescription
	}
	c.TaskStates = existing.TaskStates
	if c.Job == nil {
		c.Job = existing.Job
	}
	c.DeploymentStatus = mergeDeploymentStatus(c, existing)
}

// mergeDeploymentStatus keeps the health the client reported within the
// same deployment. The server owns Canary; a move to another deployment
// starts the health over.
func mergeDeploymentStatus(c, existing *structs.Allocation) *structs.AllocDeploymentStatus {
	if existing.DeploymentStatus == nil || c.DeploymentID != existing.DeploymentID {
		return c.DeploymentStatus
	}
	ds := existing.DeploymentStatus.Copy()
	if c.DeploymentStatus != nil {
		ds.Canary = c.DeploymentStatus.Canary
	}
	return ds
}

// storeAlloc inserts an alloc in place of old, the stored alloc of its ID
// read in this transaction (nil if none), and queues its job's status.
func (tx *writeTxn) storeAlloc(a, old *structs.Allocation) error {
	tx.internAlloc(a)
	if err := tx.insertAlloc(a, old); err != nil {
		return err
	}
	tx.checkJob(a.Namespace, a.JobID)
	if a.JobID != "" && !a.TerminalStatus() {
		if tx.liveAllocs == nil {
			tx.liveAllocs = map[structs.NamespacedID]*structs.Allocation{}
		}
		tx.liveAllocs[structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}] = a
	}
	return nil
}

func (tx *writeTxn) deleteAlloc(id string) error {
	a, err := tx.allocByID(id)
	if err != nil || a == nil {
		return err
	}
	tx.checkJob(a.Namespace, a.JobID)
	return tx.remove(TableAllocs, a)
}

// AllocByID returns the allocation, or nil.
func (r reader) AllocByID(ws memdb.WatchSet, id string) (*structs.Allocation, error) {
	return allocByID(r.txn(), ws, id)
}

func allocByID(txn *memdb.Txn, ws memdb.WatchSet, id string) (*structs.Allocation, error) {
	return first[structs.Allocation](txn, ws, TableAllocs, "id", id)
}

func allocNamespace(a *structs.Allocation) string { return a.Namespace }

// AllocsByIDPrefix returns the allocs of a namespace ("*" for all) whose ID
// starts with prefix, sorted by ID.
func (r reader) AllocsByIDPrefix(ws memdb.WatchSet, namespace, prefix string) ([]*structs.Allocation, error) {
	return listWhere(r.txn(), ws, inNamespace(namespace, allocNamespace), TableAllocs, "id_prefix", prefix)
}

// Allocs returns the allocs of a namespace ("*" for all), sorted by ID.
func (r reader) Allocs(ws memdb.WatchSet, namespace string) ([]*structs.Allocation, error) {
	return listWhereInNamespace(r.txn(), ws, namespace, allocNamespace, TableAllocs, "id")
}

// AllocsByJob returns the allocs of a job. Unless anyCreateIndex, only the
// allocs of the current incarnation of the job are returned: a job purged
// and registered again under the same ID must not see the allocs of its
// predecessor. If the job does not exist (purged), every alloc left under
// its ID is returned, so that they can still be found and stopped.
func (r reader) AllocsByJob(ws memdb.WatchSet, namespace, jobID string, anyCreateIndex bool) ([]*structs.Allocation, error) {
	txn := r.txn()
	allocs, err := allocsByJob(txn, ws, namespace, jobID)
	if err != nil || anyCreateIndex {
		return allocs, err
	}
	job, err := jobByID(txn, ws, namespace, jobID)
	if err != nil || job == nil {
		return allocs, err
	}
	out := allocs[:0:0]
	for _, a := range allocs {
		if allocOfJobIncarnation(a, job) {
			out = append(out, a)
		}
	}
	return out, nil
}

func allocsByJob(txn *memdb.Txn, ws memdb.WatchSet, namespace, jobID string) ([]*structs.Allocation, error) {
	return list[structs.Allocation](txn, ws, TableAllocs, "job", namespace, jobID)
}

// AllocsByNode returns every alloc placed on a node, sorted by ID: its
// live allocs (its node_usage row) and its terminal ones (node_terminal).
func (r reader) AllocsByNode(ws memdb.WatchSet, nodeID string) ([]*structs.Allocation, error) {
	txn := r.txn()
	live, err := liveAllocsOnNode(txn, ws, nodeID)
	if err != nil {
		return nil, err
	}
	terminal, err := terminalAllocsOnNode(txn, ws, nodeID)
	if err != nil || len(live) == 0 {
		return terminal, err
	}
	allocs := append(live, terminal...)
	slices.SortFunc(allocs, func(a, b *structs.Allocation) int { return strings.Compare(a.ID, b.ID) })
	return allocs, nil
}

// AllocsByNodeTerminal returns the terminal (or the non-terminal) allocs of
// a node, sorted by ID; the watch only fires on changes to that half.
func (r reader) AllocsByNodeTerminal(ws memdb.WatchSet, nodeID string, terminal bool) ([]*structs.Allocation, error) {
	if terminal {
		return terminalAllocsOnNode(r.txn(), ws, nodeID)
	}
	return liveAllocsOnNode(r.txn(), ws, nodeID)
}

// liveAllocsOnNode returns a copy of the node's usage row's allocs: the
// node's live allocs in ID order (nil when none). Live allocs have no
// node index entry: the row, which every alloc write updates anyway,
// serves them, and it is rewritten whenever one of them changes.
func liveAllocsOnNode(txn *memdb.Txn, ws memdb.WatchSet, nodeID string) ([]*structs.Allocation, error) {
	u, err := nodeUsage(txn, ws, nodeID)
	if err != nil || u.Empty() {
		return nil, err
	}
	return slices.Clone(u.Allocs), nil
}

func terminalAllocsOnNode(txn *memdb.Txn, ws memdb.WatchSet, nodeID string) ([]*structs.Allocation, error) {
	return list[structs.Allocation](txn, ws, TableAllocs, "node_terminal", nodeID)
}

// AllocsByEval returns the allocs an evaluation created or updated last.
//
// Allocs have no eval index (an index entry per alloc costs as much as the
// rest of the alloc): an eval's allocs are among its job's, so this reads
// the eval and filters its job's allocs. An eval no longer stored has no
// allocs to report.
func (r reader) AllocsByEval(ws memdb.WatchSet, evalID string) ([]*structs.Allocation, error) {
	txn := r.txn()
	e, err := evalByID(txn, ws, evalID)
	if err != nil || e == nil || e.JobID == "" {
		return nil, err
	}
	byEval := func(a *structs.Allocation) bool { return a.EvalID == evalID }
	return listWhere(txn, ws, byEval, TableAllocs, "job", e.Namespace, e.JobID)
}

// AllocsByDeployment returns the allocs of a deployment.
func (r reader) AllocsByDeployment(ws memdb.WatchSet, deploymentID string) ([]*structs.Allocation, error) {
	return list[structs.Allocation](r.txn(), ws, TableAllocs, "deployment", deploymentID)
}
