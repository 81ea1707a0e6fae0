package server

import "github.com/drover-project/drover/internal/structs"

// UpsertEvals writes evaluations (status changes and follow-ups) through
// raft. Workers and leader components call it; it is not exposed over HTTP.
func (s *Server) UpsertEvals(evals []*structs.Evaluation) error {
	_, err := s.raftApply(structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: evals})
	return err
}

// DeleteEvals deletes evaluations by ID, with their terminal allocs, in
// one entry. Only terminal evals may go: a pending or blocked eval is held
// by the broker or the blocked tracker, and deleting it under them would
// lose work, so those are refused with 400.
func (s *Server) DeleteEvals(ids []string) (int, uint64, error) {
	if len(ids) == 0 {
		return 0, 0, BadRequest("EvalIDs: name at least one evaluation")
	}
	var allocIDs []string
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
		allocs, err := s.State().AllocsByEval(nil, id)
		if err != nil {
			return 0, 0, err
		}
		for _, a := range allocs {
			if a.TerminalStatus() {
				allocIDs = append(allocIDs, a.ID)
			}
		}
	}
	index, err := s.raftApply(structs.EvalDeleteRequestType, &structs.EvalDeleteRequest{Evals: ids, Allocs: allocIDs})
	return len(ids), index, err
}
