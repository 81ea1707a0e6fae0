package state

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// TestWrite_ChangeAndItsEvalsAreOneTransaction: a raft entry's change and
// the evals it causes land together or not at all.
func TestWrite_ChangeAndItsEvalsAreOneTransaction(t *testing.T) {
	s, err := NewStateStore()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertJob(5, 1, mockJob("web"), mockEval("e1", "web")); err != nil {
		t.Fatal(err)
	}
	job, _ := s.JobByID(nil, "default", "web")
	eval, _ := s.EvalByID(nil, "e1")
	if job == nil || eval == nil || job.ModifyIndex != 5 || eval.CreateIndex != 5 || s.Index(TableEvals) != 5 {
		t.Fatalf("job %v eval %v", job, eval)
	}
	if job.Status != structs.JobStatusPending {
		t.Errorf("job status %q: the pending eval written with it must count", job.Status)
	}

	bad := mockEval("", "api") // memdb rejects an eval without an ID
	if err := s.UpsertJob(6, 1, mockJob("api"), bad); err == nil {
		t.Fatal("write with an invalid eval succeeded")
	}
	if job, _ := s.JobByID(nil, "default", "api"); job != nil {
		t.Fatal("job written although its eval was not: the entry applied in part")
	}
	if s.LatestIndex() != 5 {
		t.Errorf("index moved to %d on a failed write", s.LatestIndex())
	}
	if err := s.UpdateNodeStatus(7, "missing", structs.NodeStatusDown, 1, nil, mockEval("e2", "web")); err == nil {
		t.Fatal("status of an unknown node applied")
	}
	if e, _ := s.EvalByID(nil, "e2"); e != nil {
		t.Fatal("eval written although its node change failed")
	}
}
