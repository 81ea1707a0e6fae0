package bench

import (
	"fmt"
	"runtime"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// runMemory places the spec's jobs through the real pipeline, then loads
// copies of the resulting nodes, jobs and allocs into an empty state store
// and measures the heap it grows by. Measuring a separate store keeps the
// raft log, broker and timeline out of the figure, while the objects are
// exactly what the scheduler and plan applier produced.
func runMemory(c *Cluster, res *Result) error {
	evalIDs, err := submitJobs(c, res.Spec)
	if err != nil {
		return err
	}
	if _, err := waitEvals(c.Srv.State(), evalIDs, waitTimeout); err != nil {
		return err
	}
	snap := c.Srv.State().Snapshot()
	nodes, err := snap.Nodes(nil)
	if err != nil {
		return err
	}
	jobs, err := snap.Jobs(nil, structs.DefaultNamespace)
	if err != nil {
		return err
	}
	allocs, err := snap.Allocs(nil, structs.DefaultNamespace)
	if err != nil {
		return err
	}
	evals, err := snap.Evals(nil, structs.DefaultNamespace)
	if err != nil {
		return err
	}
	res.Placements = len(allocs)
	if res.PerNode, res.PerAlloc, err = storeFootprint(nodes, jobs, allocs); err != nil {
		return err
	}
	res.PerEval, err = evalFootprint(evals, footprintEvals)
	return err
}

// footprintEvals is how many evals evalFootprint stores: the run's few
// register evals, repeated under new IDs, so the per-eval figure is not
// lost in the noise of a heap measurement.
const footprintEvals = 10_000

// evalFootprint returns the heap bytes one completed eval (as the pipeline
// left it: timeline, queued allocations) adds to a state store, index
// entries included.
func evalFootprint(evals []*structs.Evaluation, n int) (float64, error) {
	if len(evals) == 0 {
		return 0, fmt.Errorf("nothing to measure: no evals")
	}
	st, err := state.NewStateStore()
	if err != nil {
		return 0, err
	}
	batch := make([]*structs.Evaluation, 0, 1000)
	base := liveHeap()
	for i := range n {
		e := evals[i%len(evals)].Copy()
		e.ID = fmt.Sprintf("%08d-0000-4000-8000-%012d", i, i)
		batch = append(batch, e)
		if len(batch) == cap(batch) || i == n-1 {
			if err := st.UpsertEvals(uint64(i+1), batch); err != nil {
				return 0, err
			}
			batch = batch[:0]
		}
	}
	batch = nil
	grown := liveHeap() - base
	runtime.KeepAlive(st)
	return float64(grown) / float64(n), nil
}

// storeFootprint returns the heap bytes one node and one alloc add to a
// state store (allocs with their index entries; jobs are shared by their
// allocs and counted apart, in neither figure).
func storeFootprint(nodes []*structs.Node, jobs []*structs.Job, allocs []*structs.Allocation) (perNode, perAlloc float64, err error) {
	if len(nodes) == 0 || len(allocs) == 0 {
		return 0, 0, fmt.Errorf("nothing to measure: %d nodes, %d allocs", len(nodes), len(allocs))
	}
	st, err := state.NewStateStore()
	if err != nil {
		return 0, 0, err
	}
	index := uint64(1)
	base := liveHeap()
	for _, n := range nodes {
		if err := st.UpsertNode(index, n.Copy()); err != nil {
			return 0, 0, err
		}
		index++
	}
	withNodes := liveHeap()
	for _, j := range jobs {
		if err := st.UpsertJob(index, j.SubmitTime, j.Copy()); err != nil {
			return 0, 0, err
		}
		index++
	}
	withJobs := liveHeap()
	if err := upsertAllocsByJob(st, &index, allocs); err != nil {
		return 0, 0, err
	}
	withAllocs := liveHeap()
	runtime.KeepAlive(st)
	perNode = float64(withNodes-base) / float64(len(nodes))
	perAlloc = float64(withAllocs-withJobs) / float64(len(allocs))
	return perNode, perAlloc, nil
}

// upsertAllocsByJob writes the allocs one job per transaction, like plan
// results. UpsertAllocs deep-copies each alloc; clearing Job on a shallow
// copy makes the new store attach its own job instead of the source's.
func upsertAllocsByJob(st *state.StateStore, index *uint64, allocs []*structs.Allocation) error {
	byJob := map[string][]*structs.Allocation{}
	for _, a := range allocs {
		c := *a
		c.Job = nil
		byJob[a.JobID] = append(byJob[a.JobID], &c)
	}
	for _, batch := range byJob {
		if err := st.UpsertAllocs(*index, batch); err != nil {
			return err
		}
		*index++
	}
	return nil
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
