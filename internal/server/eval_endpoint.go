package server

import (
	"github.com/hashicorp/go-bexpr"

	"github.com/drover-project/drover/internal/structs"
)

// DeleteEvals deletes evaluations by ID, with their terminal allocs, in
// entries of at most evalDeleteBatch IDs so no entry holds raft up for
// long. Only terminal evals may go: a pending or blocked eval is held by
// the broker or the blocked tracker, and deleting it under them would lose
// work, so those are refused with 400 before anything is deleted.
func (s *Server) DeleteEvals(ids []string) (int, uint64, error) {
	if len(ids) == 0 {
		return 0, 0, BadRequest("EvalIDs: name at least one evaluation")
	}
	evals := make([]*structs.Evaluation, 0, len(ids))
	for _, id := range ids {
		e, err := s.State().EvalByID(nil, id)
		if err != nil {
			return 0, 0, err
		}
		if e == nil {
			return 0, 0, NotFound("evaluation %q not found", id)
		}
		if !e.TerminalStatus() {
			return 0, 0, BadRequest("EvalIDs: evaluation %s is %s; only complete, failed or canceled evaluations can be deleted", id, e.Status)
		}
		evals = append(evals, e)
	}
	return s.deleteTerminalEvals(evals)
}

// DeleteEvalsWhere deletes every terminal eval that match selects, with
// its terminal allocs, in bounded entries (DELETE /v1/evaluations with a
// filter). Live evals are never selected. Every eval is matched before
// anything is deleted, so a match error deletes nothing.
func (s *Server) DeleteEvalsWhere(match func(*structs.Evaluation) (bool, error)) (int, uint64, error) {
	all, err := s.State().Evals(nil, "*")
	if err != nil {
		return 0, 0, err
	}
	evals := all[:0:0]
	for _, e := range all {
		if !e.TerminalStatus() {
			continue
		}
		ok, err := match(e)
		if err != nil {
			return 0, 0, err
		}
		if ok {
			evals = append(evals, e)
		}
	}
	return s.deleteTerminalEvals(evals)
}

// deleteEvalsByFilter deletes the terminal evals a go-bexpr filter over
// the evaluation's fields selects (Nomad's field names, which the structs
// share).
func (s *Server) deleteEvalsByFilter(args *structs.EvalDeleteArgs) (int, uint64, error) {
	if len(args.EvalIDs) > 0 {
		return 0, 0, BadRequest("EvalIDs: give either EvalIDs or a Filter, not both")
	}
	ev, err := bexpr.CreateEvaluator(args.Filter)
	if err != nil {
		return 0, 0, BadRequest("Filter: invalid expression: %v", err)
	}
	return s.DeleteEvalsWhere(func(e *structs.Evaluation) (bool, error) {
		ok, err := ev.Evaluate(e)
		if err != nil {
			return false, BadRequest("Filter: %v", err)
		}
		return ok, nil
	})
}

func (s *Server) deleteTerminalEvals(evals []*structs.Evaluation) (int, uint64, error) {
	allocs, err := s.allocsByEval(evals)
	if err != nil {
		return 0, 0, err
	}
	d := &evalDeleter{srv: s, why: "deleted by request"}
	for _, e := range evals {
		var ids []string
		for _, a := range allocs[e.ID] {
			if a.TerminalStatus() {
				ids = append(ids, a.ID)
			}
		}
		if err := d.Add(e.ID, ids); err != nil {
			return d.count, d.index, err
		}
	}
	err = d.Flush()
	return d.count, d.index, err
}
