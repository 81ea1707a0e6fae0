package server

import "github.com/drover-project/drover/internal/structs"

// UpsertEvals writes evaluations (status changes and follow-ups) through
// raft. Workers and leader components call it; it is not exposed over HTTP.
func (s *Server) UpsertEvals(evals []*structs.Evaluation) error {
	_, err := s.raftApply(structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: evals})
	return err
}
