package server

import (
	"context"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// A blocked eval of a job that is stopped or purged is canceled at once:
// it does not wait, blocked, for an unrelated capacity change.
func TestEvalStatus_BlockedToCanceled_JobStoppedOrPurged(t *testing.T) {
	for _, purge := range []bool{false, true} {
		t.Run(map[bool]string{false: "stop", true: "purge"}[purge], func(t *testing.T) {
			s := realServer(t)
			if _, err := s.RegisterNode(e2eNode(1, 1000, 1024)); err != nil {
				t.Fatal(err)
			}
			reply, err := s.Job.Register(context.Background(), &structs.JobRegisterArgs{Job: e2eJob("big", 1, 3000, 2048)})
			if err != nil {
				t.Fatal(err)
			}
			done := waitEval(t, s, reply.EvalID, structs.EvalStatusComplete)
			blocked := waitEval(t, s, done.BlockedEval, structs.EvalStatusBlocked)
			if _, err := s.Job.Deregister(context.Background(), &structs.JobDeregisterArgs{JobID: "big", Purge: purge}); err != nil {
				t.Fatal(err)
			}
			got := waitEval(t, s, blocked.ID, structs.EvalStatusCanceled)
			if got.StatusDescription != descJobStopped {
				t.Fatalf("blocked eval canceled with %q", got.StatusDescription)
			}
			if st := s.blocked.Stats(); st.TotalBlocked != 0 {
				t.Fatalf("tracker still holds %d blocked evals", st.TotalBlocked)
			}
		})
	}
}
