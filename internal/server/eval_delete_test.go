package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// Deleting more evals than fit in one entry writes several bounded
// entries, each with its evals' terminal allocs, and deletes them all.
func TestDeleteEvals_BoundedEntries(t *testing.T) {
	s := testServer(t, "")
	defer s.Shutdown()
	waitForLeaderWrites(t, s)
	defer func(n int) { evalDeleteBatch = n }(evalDeleteBatch)
	evalDeleteBatch = 10

	var evals []*structs.Evaluation
	var allocs []*structs.Allocation
	for i := range 12 {
		e := &structs.Evaluation{
			ID: fmt.Sprintf("e%02d", i), Namespace: structs.DefaultNamespace, JobID: "j",
			Type: structs.JobTypeService, Status: structs.EvalStatusComplete,
		}
		evals = append(evals, e)
		allocs = append(allocs, &structs.Allocation{
			ID: fmt.Sprintf("a%02d", i), Namespace: structs.DefaultNamespace, EvalID: e.ID, JobID: "j",
			NodeID: "n1", DesiredStatus: structs.AllocDesiredStatusStop, ClientStatus: structs.AllocClientStatusComplete,
		})
	}
	if err := s.UpsertEvals(evals); err != nil {
		t.Fatal(err)
	}
	if _, err := s.raftApply(context.Background(), structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Allocs: allocs}); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(evals))
	for i, e := range evals {
		ids[i] = e.ID
	}
	before := s.State().LatestIndex()
	n, index, err := s.DeleteEvals(ids)
	if err != nil {
		t.Fatal(err)
	}
	// 12 evals with one alloc each: 5 pairs per entry of 10 IDs.
	if n != 12 || index-before != 3 {
		t.Fatalf("deleted %d evals in %d entries, want 12 in 3", n, index-before)
	}
	left, _ := s.State().Allocs(nil, "*")
	if left2, _ := s.State().Evals(nil, "*"); len(left) != 0 || len(left2) != 0 {
		t.Fatalf("%d allocs and %d evals left", len(left), len(left2))
	}
}

// An eval with more allocs than fit in an entry has them deleted over
// several entries, and goes itself with the last of them.
func TestDeleteEvals_BigEvalSpansEntries(t *testing.T) {
	s := testServer(t, "")
	defer s.Shutdown()
	waitForLeaderWrites(t, s)
	defer func(n int) { evalDeleteBatch = n }(evalDeleteBatch)
	evalDeleteBatch = 10

	e := &structs.Evaluation{ID: "big", Namespace: structs.DefaultNamespace, JobID: "j",
		Type: structs.JobTypeService, Status: structs.EvalStatusComplete}
	var allocs []*structs.Allocation
	for i := range 25 {
		allocs = append(allocs, &structs.Allocation{
			ID: fmt.Sprintf("a%02d", i), Namespace: structs.DefaultNamespace, EvalID: e.ID, JobID: "j",
			NodeID: "n1", DesiredStatus: structs.AllocDesiredStatusStop, ClientStatus: structs.AllocClientStatusComplete,
		})
	}
	if err := s.UpsertEvals([]*structs.Evaluation{e}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.raftApply(context.Background(), structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Allocs: allocs}); err != nil {
		t.Fatal(err)
	}
	before := s.State().LatestIndex()
	n, index, err := s.DeleteEvals([]string{"big"})
	if err != nil {
		t.Fatal(err)
	}
	// 10 + 10 allocs, then 5 allocs with the eval.
	if n != 1 || index-before != 3 {
		t.Fatalf("deleted %d evals in %d entries, want 1 in 3", n, index-before)
	}
	if left, _ := s.State().Allocs(nil, "*"); len(left) != 0 {
		t.Fatalf("%d allocs left", len(left))
	}
}

// waitForLeaderWrites waits for the writes a new leader makes on its own
// (the first keyring root key), so a test counting raft entries counts
// only its own.
func waitForLeaderWrites(t *testing.T, s *Server) {
	t.Helper()
	testutil.WaitFor(t, 10*time.Second, "the leader's first root key", func() bool {
		k, err := s.State().ActiveRootKey(nil)
		return err == nil && k != nil
	})
}
