package server

import (
	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/structs"
)

// evalDeleteBatch bounds the IDs (evals plus allocs) of one eval-delete
// raft entry. Applying an entry blocks raft, and deleting a million evals
// in one entry blocked it for minutes. Past about 8,000 changed tree nodes
// per index, go-immutable-radix closes watch channels by walking the whole
// tree at commit, so the cost of an entry jumps with its size:
// `go test -run ^$ -bench DeleteEvalsEntry ./internal/state` measured
// 13 ms of CPU for 1,024 IDs, 64 ms for 2,048 and 189 ms for 4,096 (100k
// evals and allocs stored, loaded 2-core machine).
var evalDeleteBatch = 1024

var _ leader.EvalDeleter = (*evalDeleter)(nil)

// evalDeleter writes eval deletes in bounded entries.
type evalDeleter struct {
	srv    *Server
	evals  []string
	allocs []string
	index  uint64 // of the last entry written
	count  int    // evals deleted
	why    string // the timeline note of each deleted eval
}

// Add queues an eval and its allocs, writing entries whenever one is full.
// An eval goes in the same entry as the last of its allocs, so an eval is
// never deleted before the allocs it explains.
func (d *evalDeleter) Add(evalID string, allocIDs []string) error {
	for {
		room := evalDeleteBatch - len(d.evals) - len(d.allocs)
		if len(allocIDs)+1 <= room {
			break
		}
		// Fill the entry with allocs, leaving the eval for a later one.
		n := min(len(allocIDs), max(room, 0))
		d.allocs = append(d.allocs, allocIDs[:n]...)
		allocIDs = allocIDs[n:]
		if err := d.Flush(); err != nil {
			return err
		}
	}
	d.evals = append(d.evals, evalID)
	d.allocs = append(d.allocs, allocIDs...)
	return nil
}

// Flush writes the queued deletes as one entry.
func (d *evalDeleter) Flush() error {
	if len(d.evals)+len(d.allocs) == 0 {
		return nil
	}
	for _, id := range d.evals {
		d.srv.timeline.Record(id, structs.EvalQuasiStatusDeleted, "", d.why)
	}
	index, err := d.srv.raftApply(structs.EvalDeleteRequestType, &structs.EvalDeleteRequest{Evals: d.evals, Allocs: d.allocs})
	if err != nil {
		return err
	}
	d.index, d.count = index, d.count+len(d.evals)
	d.evals, d.allocs = nil, nil
	return nil
}

// allocsByEval returns the allocs of each given eval, reading each job's
// allocs once: the store finds an eval's allocs through its job, so a
// per-eval lookup would read a big job's allocs once per eval.
func (s *Server) allocsByEval(evals []*structs.Evaluation) (map[string][]*structs.Allocation, error) {
	jobs := map[structs.NamespacedID]bool{}
	for _, e := range evals {
		if e.JobID != "" {
			jobs[structs.NamespacedID{Namespace: e.Namespace, ID: e.JobID}] = true
		}
	}
	byEval := map[string][]*structs.Allocation{}
	snap := s.State().Snapshot()
	for job := range jobs {
		allocs, err := snap.AllocsByJob(nil, job.Namespace, job.ID, true)
		if err != nil {
			return nil, err
		}
		for _, a := range allocs {
			byEval[a.EvalID] = append(byEval[a.EvalID], a)
		}
	}
	return byEval, nil
}
