package server

import (
	"github.com/hashicorp/go-bexpr"

	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// UpsertEvals writes evaluations (status changes and follow-ups) through
// raft. Workers and leader components call it; it is not exposed over HTTP.
func (s *Server) UpsertEvals(evals []*structs.Evaluation) error {
	_, err := s.raftApply(s.ctx, structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: evals})
	return err
}

// DeleteEvals deletes evaluations by ID, with their terminal allocs, in
// entries of at most evalDeleteBatch IDs so no entry holds raft up for
// long. Only terminal evals may go: a pending or blocked eval is held by
// the broker or the blocked tracker, and deleting it under them would lose
// work, so those are refused with 400 before anything is deleted.
func (s *Server) DeleteEvals(ids []string) (int, uint64, error) {
	if len(ids) == 0 {
		return 0, 0, BadRequest("EvalIDs: name at least one evaluation")
	}
	evals := make([]*structs.Evaluation, 0, len(ids))
	for _, id := range ids {
		e, err := s.State().EvalByID(nil, id)
		if err != nil {
			return 0, 0, err
		}
		if e == nil {
			return 0, 0, NotFound("evaluation %q not found", id)
		}
		if !e.TerminalStatus() {
			return 0, 0, BadRequest("EvalIDs: evaluation %s is %s; only complete, failed or canceled evaluations can be deleted", id, e.Status)
		}
		evals = append(evals, e)
	}
	return (&evalDeleter{srv: s, why: "deleted by request"}).deleteAll(evals)
}

// DeleteEvalsWhere deletes every terminal eval that match selects, with
// its terminal allocs, in bounded entries (DELETE /v1/evaluations with a
// filter). Live evals are never selected. Every eval is matched before
// anything is deleted, so a match error deletes nothing.
func (s *Server) DeleteEvalsWhere(match func(*structs.Evaluation) (bool, error)) (int, uint64, error) {
	all, err := s.State().Evals(nil, "*")
	if err != nil {
		return 0, 0, err
	}
	evals := all[:0:0]
	for _, e := range all {
		if !e.TerminalStatus() {
			continue
		}
		ok, err := match(e)
		if err != nil {
			return 0, 0, err
		}
		if ok {
			evals = append(evals, e)
		}
	}
	return (&evalDeleter{srv: s, why: "deleted by request"}).deleteAll(evals)
}

// evalFilter is the match of DELETE /v1/evaluations with a filter: a
// go-bexpr expression over the evaluation's fields (Nomad's field names,
// which the structs share).
func evalFilter(args *structs.EvalDeleteArgs) (func(*structs.Evaluation) (bool, error), error) {
	if len(args.EvalIDs) > 0 {
		return nil, BadRequest("EvalIDs: give either EvalIDs or a Filter, not both")
	}
	ev, err := bexpr.CreateEvaluator(args.Filter)
	if err != nil {
		return nil, BadRequest("Filter: invalid expression: %v", err)
	}
	return func(e *structs.Evaluation) (bool, error) {
		ok, err := ev.Evaluate(e)
		if err != nil {
			return false, BadRequest("Filter: %v", err)
		}
		return ok, nil
	}, nil
}

// deleteAll deletes evals and their terminal allocs in bounded entries.
func (d *evalDeleter) deleteAll(evals []*structs.Evaluation) (int, uint64, error) {
	allocs, err := allocsByEval(d.srv.State(), evals)
	if err != nil {
		return 0, 0, err
	}
	for _, e := range evals {
		var ids []string
		for _, a := range allocs[e.ID] {
			if a.TerminalStatus() {
				ids = append(ids, a.ID)
			}
		}
		if err := d.Add(e.ID, ids); err != nil {
			return d.count, d.index, err
		}
	}
	err = d.Flush()
	return d.count, d.index, err
}

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
	index, err := d.srv.raftApply(d.srv.ctx, structs.EvalDeleteRequestType, &structs.EvalDeleteRequest{Evals: d.evals, Allocs: d.allocs})
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
func allocsByEval(st *state.StateStore, evals []*structs.Evaluation) (map[string][]*structs.Allocation, error) {
	jobs := map[structs.NamespacedID]bool{}
	for _, e := range evals {
		if e.JobID != "" {
			jobs[structs.NamespacedID{Namespace: e.Namespace, ID: e.JobID}] = true
		}
	}
	byEval := map[string][]*structs.Allocation{}
	snap := st.Snapshot()
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
