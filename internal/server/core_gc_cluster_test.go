package server

import (
	"context"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// TestCoreGC_CompletesOnAThreeServerCluster (issue 27): the core
// scheduler writes through the leader's raft directly, which fails with
// "no cluster leader" on a follower, so a `_core` eval a follower's worker
// dequeued never completed there. Followers' workers now never ask the
// leader for `_core` evals; the leader's own workers (at least one always
// runs) take them.
//
// The leader's worker is paused while the followers schedule: a force-gc
// eval is written, then a job eval of lower priority. Once a follower has
// completed the job eval, any follower that asked for `_core` evals would
// have been handed the core eval first; none may have been. Then the
// leader's worker runs again and the GC completes, purging a stopped job.
func TestCoreGC_CompletesOnAThreeServerCluster(t *testing.T) {
	first := startClusterServer(t, "s1", 1, nil, nil)
	waitFor(t, func() bool { return first.IsLeader() && first.LeaderActive() })
	followers := []*Server{
		startClusterServer(t, "s2", 0, []string{first.SerfAddr()}, nil),
		startClusterServer(t, "s3", 0, []string{first.SerfAddr()}, nil),
	}
	for _, f := range followers {
		testutil.WaitFor(t, 20*time.Second, "the follower to follow the leader", func() (bool, string) {
			return f.Leader() == first.config.RaftAddr, "follower's leader " + f.Leader()
		})
	}
	for _, w := range first.workers {
		w.SetPaused(true)
	}
	ctx := context.Background()
	waitDone := func(id string) *structs.Evaluation {
		t.Helper()
		var e *structs.Evaluation
		testutil.WaitFor(t, 20*time.Second, "eval "+id+" to end", func() (bool, string) {
			e, _ = first.State().EvalByID(nil, id)
			return e != nil && e.TerminalStatus(), "status " + statusOf(e)
		})
		return e
	}

	// A stopped job for the GC to purge, scheduled by the followers.
	reg, err := JobRegister.Call(ctx, first, &structs.JobRegisterArgs{Job: mock.Job("old")})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(reg.EvalID)
	dereg, err := JobDeregister.Call(ctx, first, &structs.JobDeregisterArgs{JobID: "old"})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(dereg.EvalID)
	testutil.WaitFor(t, 20*time.Second, "every eval of the stopped job to end", func() (bool, string) {
		evals, _ := first.State().EvalsByJob(nil, structs.DefaultNamespace, "old")
		for _, e := range evals {
			if !e.TerminalStatus() {
				return false, "eval " + e.ID + " is " + e.Status
			}
		}
		return true, ""
	})

	if err := first.leader.CreateCoreEvals(leader.CoreJobForceGC); err != nil {
		t.Fatal(err)
	}
	core := coreEval(t, first)
	later, err := JobRegister.Call(ctx, first, &structs.JobRegisterArgs{Job: mock.Job("later")})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(later.EvalID)
	for _, f := range followers {
		if steps := f.timeline.Entries(core.ID); len(steps) > 0 {
			t.Fatalf("follower %s took the core eval: %+v", f.config.NodeName, steps[0])
		}
	}

	for _, w := range first.workers {
		w.SetPaused(false)
	}
	if e := waitDone(core.ID); e.Status != structs.EvalStatusComplete {
		t.Fatalf("core eval ended %s", statusOf(e))
	}
	if j, _ := first.State().JobByID(nil, structs.DefaultNamespace, "old"); j != nil {
		t.Fatal("the stopped job was not purged by the GC")
	}
}

// coreEval returns the one `_core` eval in the state.
func coreEval(t *testing.T, s *Server) *structs.Evaluation {
	t.Helper()
	evals, err := s.State().EvalsByJob(nil, structs.DefaultNamespace, leader.CoreJobForceGC)
	if err != nil || len(evals) != 1 {
		t.Fatalf("force-gc evals %v (%v), want one", evals, err)
	}
	return evals[0]
}
