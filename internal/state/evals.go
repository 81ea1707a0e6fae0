package state

import (
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
	existing, err := evalByID(tx.Txn, nil, e.ID)
	if err != nil {
		return err
	}
	c := e.Copy()
	c.RelatedEvals = nil // computed on read, never stored
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
	e, err := evalByID(tx.Txn, nil, id)
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
	return listInNamespace[structs.Evaluation](r.txn(), ws, TableEvals, namespace)
}

// EvalsByJob returns the evals of a job.
func (r reader) EvalsByJob(ws memdb.WatchSet, namespace, jobID string) ([]*structs.Evaluation, error) {
	return evalsByJob(r.txn(), ws, namespace, jobID)
}

func evalsByJob(txn *memdb.Txn, ws memdb.WatchSet, namespace, jobID string) ([]*structs.Evaluation, error) {
	return list[structs.Evaluation](txn, ws, TableEvals, "job", namespace, jobID)
}

// EvalsByStatus returns the evals with a stored status (e.g. the pending
// and blocked evals a new leader restores into the broker).
func (r reader) EvalsByStatus(ws memdb.WatchSet, status string) ([]*structs.Evaluation, error) {
	return list[structs.Evaluation](r.txn(), ws, TableEvals, "status", status)
}
