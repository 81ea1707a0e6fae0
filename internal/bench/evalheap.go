package bench

import (
	"context"
	"fmt"
	"runtime"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// EvalHeap is what a dev server holds per stored eval.
type EvalHeap struct {
	Evals        int                  // evals created by the measured step
	PerEval      float64              // live heap of the whole process per eval
	Raft         server.RaftFootprint // raft's in-memory log and snapshot afterwards
	LogPerEval   float64              // log payload bytes per eval
	StoredEvals  int                  // evals in the state store afterwards
	HeapAfterMiB float64
}

// MeasureEvalHeap places jobs jobs of one alloc on c, then asks for n
// re-evaluations of them (Job.Evaluate, from 8 goroutines: each writes an
// eval and the scheduler completes it with nothing to change) and returns
// the live heap the server grew by per eval, with the raft log's share.
// Evals stay in the store until eval GC (an hour), so this is what a busy
// dev agent carries.
func MeasureEvalHeap(c *Cluster, jobs, n int) (*EvalHeap, error) {
	spec := Spec{Jobs: jobs, Count: 1, Submitters: 8}
	registered, err := submitJobs(c, spec)
	if err != nil {
		return nil, err
	}
	if _, err := waitEvals(c.Srv.State(), registered, waitTimeout); err != nil {
		return nil, err
	}
	base := liveHeap()
	ids := make([]string, n)
	err = parallel(n, spec.Submitters, func(i int) error {
		reply, err := server.JobEvaluate.Call(context.Background(), c.Srv, &structs.JobEvaluateArgs{JobID: jobID(i % jobs)})
		if err != nil {
			return fmt.Errorf("evaluate %s: %w", jobID(i%jobs), err)
		}
		ids[i] = reply.EvalID
		return nil
	})
	if err != nil {
		return nil, err
	}
	if _, err := waitEvals(c.Srv.State(), ids, waitTimeout); err != nil {
		return nil, err
	}
	after := liveHeap()
	res := &EvalHeap{Evals: n, PerEval: float64(after-base) / float64(n), HeapAfterMiB: float64(after) / (1 << 20)}
	if res.Raft, err = c.Srv.RaftFootprint(); err != nil {
		return nil, err
	}
	res.LogPerEval = float64(res.Raft.LogBytes) / float64(n)
	stored, err := c.Srv.State().Evals(nil, structs.DefaultNamespace)
	res.StoredEvals = len(stored)
	runtime.KeepAlive(stored)
	return res, err
}
