package server

import "github.com/drover-project/drover/internal/structs"

// newJobEval creates a pending evaluation of a job for a trigger.
func (s *Server) newJobEval(job *structs.Job, trigger string) *structs.Evaluation {
	now := s.now().UnixNano()
	return &structs.Evaluation{
		ID:          s.config.NewID(),
		Namespace:   job.Namespace,
		Priority:    job.Priority,
		Type:        job.Type,
		TriggeredBy: trigger,
		JobID:       job.ID,
		Status:      structs.EvalStatusPending,
		CreateTime:  now,
		ModifyTime:  now,
	}
}

// clearServerOwnedFields drops what a client may send but only the server
// decides: versions, indexes, status and submit time.
func clearServerOwnedFields(j *structs.Job) {
	j.Status, j.StatusDescription, j.Stable, j.VersionTag = "", "", false, nil
	j.Version, j.SubmitTime = 0, 0
	j.CreateIndex, j.ModifyIndex, j.JobModifyIndex = 0, 0, 0
}
