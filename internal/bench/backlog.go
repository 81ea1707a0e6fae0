package bench

import (
	"fmt"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// backlogBatch is how many evals one raft entry carries.
const backlogBatch = 1000

// runBacklog places the spec's jobs, then writes spec.Evals pending evals
// spread evenly over them (as a node-event storm would) and measures how
// long the pipeline takes to drain them. The broker keeps one eval per job
// in flight and cancels the ones a newer eval superseded, so most are
// canceled rather than scheduled; both counts are reported.
func runBacklog(c *Cluster, res *Result) error {
	jobEvals, err := submitJobs(c, res.Spec)
	if err != nil {
		return err
	}
	if _, err := waitEvals(c.Srv.State(), jobEvals, waitTimeout); err != nil {
		return err
	}
	evals := backlogEvals(c.Srv, res.Jobs, res.Evals)
	start := time.Now()
	for i := 0; i < len(evals); i += backlogBatch {
		if err := c.Srv.UpsertEvals(evals[i:min(i+backlogBatch, len(evals))]); err != nil {
			return fmt.Errorf("write backlog: %w", err)
		}
	}
	if err := waitDrained(c.Srv); err != nil {
		return err
	}
	res.Elapsed = time.Since(start)
	res.PerSecond = float64(len(evals)) / res.Elapsed.Seconds()
	return countOutcomes(c.Srv.State(), evals, res)
}

// backlogEvals builds n pending evals round-robin over the first jobs bench
// jobs, so every batch touches every job.
func backlogEvals(srv *server.Server, jobs, n int) []*structs.Evaluation {
	now := time.Now().UnixNano()
	evals := make([]*structs.Evaluation, n)
	for i := range evals {
		evals[i] = &structs.Evaluation{
			ID: server.NewUUID(), Namespace: structs.DefaultNamespace, Priority: 50,
			Type: structs.JobTypeService, TriggeredBy: structs.EvalTriggerNodeUpdate,
			JobID: jobID(i % jobs), Status: structs.EvalStatusPending,
			CreateTime: now, ModifyTime: now,
		}
	}
	return evals
}

// waitDrained waits until the broker holds nothing and the state store has
// no pending eval left. Broker stats walk its queues, so they are polled
// sparingly; the state check runs only once the broker looks empty.
func waitDrained(srv *server.Server) error {
	return waitUntil(waitTimeout, 10*time.Millisecond, func() bool {
		st := srv.Stats()
		b := st.Broker
		if b.TotalReady+b.TotalUnacked+b.TotalWaiting+b.TotalPending+b.TotalCancelable+st.PlanQueue > 0 {
			return false
		}
		pending, err := srv.State().EvalsByStatus(nil, structs.EvalStatusPending)
		return err == nil && len(pending) == 0
	})
}

// countOutcomes sorts the backlog evals by final status.
func countOutcomes(st *state.StateStore, evals []*structs.Evaluation, res *Result) error {
	for _, e := range evals {
		got, err := st.EvalByID(nil, e.ID)
		if err != nil {
			return err
		}
		switch {
		case got == nil:
			return fmt.Errorf("eval %s vanished", e.ID)
		case got.Status == structs.EvalStatusComplete,
			got.Status == structs.EvalStatusCanceled && got.StatusDescription == scheduler.EvalDescNoOp:
			res.Processed++ // a scheduler ran it (a no-op ends canceled)
		case got.Status == structs.EvalStatusCanceled:
			res.Canceled++
		default:
			return fmt.Errorf("eval %s ended %s", e.ID, got.Status)
		}
	}
	return nil
}
