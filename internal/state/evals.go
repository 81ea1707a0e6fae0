package state

import (
	"slices"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// UpsertEvals inserts or updates evaluations and recomputes the status of
// their jobs.
func (s *StateStore) UpsertEvals(index uint64, evals []*structs.Evaluation) error {
	return s.write(index, func(tx *writeTxn) error {
		return tx.upsertEvals(evals)
	})
}

func (tx *writeTxn) upsertEvals(evals []*structs.Evaluation) error {
	for _, e := range evals {
		if err := tx.upsertEval(e); err != nil {
			return err
		}
	}
	return nil
}

// upsertEval stores a copy of e. An update keeps the creation stamps of the
// stored eval: they describe when it first appeared.
func (tx *writeTxn) upsertEval(e *structs.Evaluation) error {
	existing, err := tx.evalByID(e.ID)
	if err != nil {
		return err
	}
	c := e.Copy()
	c.RelatedEvals = nil // computed on read, never stored
	tx.internEval(c)
	c.ModifyIndex = tx.index
	if existing != nil {
		c.CreateIndex, c.CreateTime = existing.CreateIndex, existing.CreateTime
	} else {
		c.CreateIndex = tx.index
	}
	if err := tx.insert(TableEvals, c); err != nil {
		return err
	}
	tx.checkJob(c.Namespace, c.JobID)
	return nil
}

// DeleteEvals removes evaluations and allocations (garbage collection).
// IDs that are already gone are ignored, so a retried GC is harmless.
func (s *StateStore) DeleteEvals(index uint64, evalIDs, allocIDs []string) error {
	return s.write(index, func(tx *writeTxn) error {
		tx.evalsDeleted = true
		// Mark both tables even if nothing matched: the GC's write happened.
		tx.touched[TableEvals], tx.touched[TableAllocs] = true, true
		for _, id := range evalIDs {
			if err := tx.deleteEval(id); err != nil {
				return err
			}
		}
		for _, id := range allocIDs {
			if err := tx.deleteAlloc(id); err != nil {
				return err
			}
		}
		return nil
	})
}

func (tx *writeTxn) deleteEval(id string) error {
	e, err := tx.evalByID(id)
	if err != nil || e == nil {
		return err
	}
	tx.checkJob(e.Namespace, e.JobID)
	return tx.remove(TableEvals, e)
}

// EvalByID returns the evaluation, or nil.
func (r reader) EvalByID(ws memdb.WatchSet, id string) (*structs.Evaluation, error) {
	return evalByID(r.txn(), ws, id)
}

func evalByID(txn *memdb.Txn, ws memdb.WatchSet, id string) (*structs.Evaluation, error) {
	return first[structs.Evaluation](txn, ws, TableEvals, "id", id)
}

func evalNamespace(e *structs.Evaluation) string { return e.Namespace }

// EvalsByIDPrefix returns the evals of a namespace ("*" for all) whose ID
// starts with prefix, sorted by ID.
func (r reader) EvalsByIDPrefix(ws memdb.WatchSet, namespace, prefix string) ([]*structs.Evaluation, error) {
	return listWhere(r.txn(), ws, inNamespace(namespace, evalNamespace), TableEvals, "id_prefix", prefix)
}

// Evals returns the evals of a namespace ("*" for all), sorted by ID.
func (r reader) Evals(ws memdb.WatchSet, namespace string) ([]*structs.Evaluation, error) {
	return listWhereInNamespace(r.txn(), ws, namespace, evalNamespace, TableEvals, "id")
}

// EvalsByJob returns the evals of a job.
func (r reader) EvalsByJob(ws memdb.WatchSet, namespace, jobID string) ([]*structs.Evaluation, error) {
	return evalsByJob(r.txn(), ws, namespace, jobID)
}

func evalsByJob(txn *memdb.Txn, ws memdb.WatchSet, namespace, jobID string) ([]*structs.Evaluation, error) {
	evals, err := list[structs.Evaluation](txn, ws, TableEvals, "job_prefix", namespace, terminatedKey(jobID))
	// The index orders live evals before terminal ones; callers get ID order.
	slices.SortFunc(evals, func(a, b *structs.Evaluation) int { return strings.Compare(a.ID, b.ID) })
	return evals, err
}

// jobEvalState reports whether a job has a live eval and whether it has
// any, each with one index lookup.
func jobEvalState(txn *memdb.Txn, namespace, jobID string) (live, any bool, err error) {
	raw, err := txn.First(TableEvals, "job", namespace, jobID, false)
	if err != nil || raw != nil {
		return raw != nil, raw != nil, err
	}
	raw, err = txn.First(TableEvals, "job_prefix", namespace, terminatedKey(jobID))
	return false, raw != nil, err
}

// terminatedKey is a string field's full key when scanned as the last
// field of a compound prefix, which memdb reads without its terminator:
// job "web" must not match "web2".
func terminatedKey(s string) string { return s + "\x00" }

// EvalsByStatus returns the evals with a stored status (e.g. the pending
// and blocked evals a new leader restores into the broker).
//
// Only live statuses are indexed; a terminal status scans every eval.
func (r reader) EvalsByStatus(ws memdb.WatchSet, status string) ([]*structs.Evaluation, error) {
	if (&structs.Evaluation{Status: status}).TerminalStatus() {
		withStatus := func(e *structs.Evaluation) bool { return e.Status == status }
		return listWhere(r.txn(), ws, withStatus, TableEvals, "id")
	}
	return list[structs.Evaluation](r.txn(), ws, TableEvals, "status", status)
}

// internEval points the eval's repeated strings at the store's copies.
func (tx *writeTxn) internEval(e *structs.Evaluation) {
	in := tx.interner
	e.Namespace, e.Type, e.TriggeredBy = in.intern(e.Namespace), in.intern(e.Type), in.intern(e.TriggeredBy)
	e.JobID, e.NodeID, e.DeploymentID = in.intern(e.JobID), in.intern(e.NodeID), in.intern(e.DeploymentID)
	e.Status, e.StatusDescription = in.intern(e.Status), in.intern(e.StatusDescription)
	e.QueuedAllocations = in.internCounts(e.QueuedAllocations)
	for _, t := range e.Timeline {
		t.Status, t.Worker, t.Note = in.intern(t.Status), in.intern(t.Worker), in.intern(t.Note)
	}
}
