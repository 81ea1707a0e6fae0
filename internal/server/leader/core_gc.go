package leader

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

// Core GC jobs: the JobID of a `_core` eval names the collection it runs.
const (
	CoreJobEvalGC  = "eval-gc"
	CoreJobJobGC   = "job-gc"
	CoreJobForceGC = "force-gc"
)

// coreScheduler runs housekeeping for `_core` evals: it deletes terminal
// evals (complete, failed, canceled -> deleted) and their terminal allocs,
// and purges stopped jobs with nothing left running, once they are older
// than the configured thresholds (or at once for force-gc).
type coreScheduler struct {
	l   *Leader
	st  scheduler.State
	log *slog.Logger
}

// CoreScheduler is the scheduler of `_core` evals (core GC), which the
// workers run.
func (l *Leader) CoreScheduler() scheduler.Factory {
	return func(log *slog.Logger, st scheduler.State, p scheduler.Planner) scheduler.Scheduler {
		return &coreScheduler{l: l, st: st, log: log}
	}
}

func (c *coreScheduler) Process(eval *structs.Evaluation) error {
	now := c.l.now()
	batchThreshold := c.l.c.BatchEvalGCThreshold
	if batchThreshold == 0 {
		batchThreshold = c.l.c.EvalGCThreshold
	}
	evalCutoff, jobCutoff := now.Add(-c.l.c.EvalGCThreshold), now.Add(-c.l.c.JobGCThreshold)
	batchCutoff := now.Add(-batchThreshold)
	var nodeCutoff time.Time // no node GC without a threshold
	if c.l.c.NodeGCThreshold > 0 {
		nodeCutoff = now.Add(-c.l.c.NodeGCThreshold)
	}
	switch eval.JobID {
	case CoreJobEvalGC:
		jobCutoff, nodeCutoff = time.Time{}, time.Time{}
	case CoreJobJobGC:
		evalCutoff, batchCutoff = time.Time{}, time.Time{}
	case CoreJobForceGC:
		evalCutoff, jobCutoff, batchCutoff, nodeCutoff = now, now, now, now
	default:
		return fmt.Errorf("core scheduler: unknown core job %q", eval.JobID)
	}
	if err := c.collectJobs(jobCutoff); err != nil {
		return err
	}
	if err := c.collectEvals(evalCutoff, batchCutoff, eval.ID); err != nil {
		return err
	}
	if err := c.collectNodes(nodeCutoff); err != nil {
		return err
	}
	if err := c.collectExpiredTokens(now); err != nil {
		return err
	}
	if err := c.collectServiceRegistrations(); err != nil {
		return err
	}
	done := eval.Copy()
	done.Status = structs.EvalStatusComplete
	return c.l.workerUpdate(done)
}

// collectEvals deletes terminal evals last modified before cutoff
// (batchCutoff for the evals of batch jobs) whose allocs are all terminal,
// with those allocs, in bounded entries.
func (c *coreScheduler) collectEvals(cutoff, batchCutoff time.Time, self string) error {
	if cutoff.IsZero() {
		return nil
	}
	cutoffOf := func(e *structs.Evaluation) time.Time {
		if e.Type == structs.JobTypeBatch {
			return batchCutoff
		}
		return cutoff
	}
	evals, err := c.l.srv.State().Evals(nil, "*")
	if err != nil {
		return err
	}
	old := evals[:0:0]
	for _, e := range evals {
		if e.TerminalStatus() && e.ID != self && e.ModifyTime <= cutoffOf(e).UnixNano() {
			old = append(old, e)
		}
	}
	allocs, err := c.l.srv.AllocsByEval(old)
	if err != nil {
		return err
	}
	d := c.l.srv.NewEvalDeleter("garbage collected")
	for _, e := range old {
		ids, ok := collectableAllocs(allocs[e.ID], cutoffOf(e))
		if !ok {
			continue
		}
		if err := d.Add(e.ID, ids); err != nil {
			return err
		}
	}
	return d.Flush()
}

// collectNodes deregisters nodes down since before cutoff with nothing
// left running on them (server node_gc_threshold), as Nomad's node GC
// does. It runs with the job GC (Nomad has its own node-gc core job; one
// pass less here, same outcome).
func (c *coreScheduler) collectNodes(cutoff time.Time) error {
	if cutoff.IsZero() {
		return nil
	}
	nodes, err := c.l.srv.State().Nodes(nil)
	if err != nil {
		return err
	}
	var ids []string
	for _, n := range nodes {
		if n.Status != structs.NodeStatusDown || n.StatusUpdatedAt > cutoff.Unix() {
			continue
		}
		live, err := c.l.srv.State().AllocsByNodeTerminal(nil, n.ID, false)
		if err != nil {
			return err
		}
		if len(live) == 0 {
			ids = append(ids, n.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	_, err = c.l.srv.Apply(structs.NodeDeregisterRequestType, &structs.NodeDeregisterRequest{NodeIDs: ids})
	return err
}

// collectableAllocs returns the IDs of an eval's allocs if all of them are
// terminal and stopped before cutoff.
func collectableAllocs(allocs []*structs.Allocation, cutoff time.Time) ([]string, bool) {
	ids := make([]string, 0, len(allocs))
	for _, a := range allocs {
		if !a.TerminalStatus() || a.ModifyTime > cutoff.UnixNano() {
			return nil, false // something still runs (or just stopped): keep the eval that explains it
		}
		ids = append(ids, a.ID)
	}
	return ids, true
}

// collectJobs purges stopped jobs submitted before cutoff whose evals and
// allocs are all terminal.
func (c *coreScheduler) collectJobs(cutoff time.Time) error {
	if cutoff.IsZero() {
		return nil
	}
	jobs, err := c.l.srv.State().Jobs(nil, "*")
	if err != nil {
		return err
	}
	var purge []structs.JobDeregisterRequest
	for _, j := range jobs {
		if c.jobCollectable(j, cutoff) {
			purge = append(purge, structs.JobDeregisterRequest{Namespace: j.Namespace, JobID: j.ID, Purge: true})
		}
	}
	if len(purge) == 0 {
		return nil
	}
	_, err = c.l.srv.Apply(structs.JobBatchDeregisterRequestType, &structs.JobBatchDeregisterRequest{Jobs: purge, SubmitTime: c.l.now().UnixNano()})
	return err
}

func (c *coreScheduler) jobCollectable(j *structs.Job, cutoff time.Time) bool {
	if !j.Stop || j.SubmitTime > cutoff.UnixNano() {
		return false
	}
	evals, _ := c.l.srv.State().EvalsByJob(nil, j.Namespace, j.ID)
	for _, e := range evals {
		if !e.TerminalStatus() {
			return false
		}
	}
	allocs, _ := c.l.srv.State().AllocsByJob(nil, j.Namespace, j.ID, true)
	for _, a := range allocs {
		if !a.TerminalStatus() {
			return false
		}
	}
	return true
}

// workerUpdate writes an eval's final status outside a worker's planner.
func (l *Leader) workerUpdate(e *structs.Evaluation) error {
	e.ModifyTime = l.now().UnixNano()
	l.timeline.Record(e.ID, e.Status, "", e.StatusDescription)
	e.Timeline = l.timeline.Entries(e.ID)
	return l.srv.UpsertEvals([]*structs.Evaluation{e})
}

// scheduleGC is one GC period: the core evals of every GC kind.
func (l *Leader) scheduleGC() {
	if err := l.CreateCoreEvals(CoreJobEvalGC, CoreJobJobGC); err != nil {
		l.log.Warn("scheduling GC failed", "error", err)
	}
}

// CreateCoreEvals writes one pending `_core` eval per core job, in one entry.
func (l *Leader) CreateCoreEvals(coreJobs ...string) error {
	now := l.now().UnixNano()
	evals := make([]*structs.Evaluation, 0, len(coreJobs))
	for _, job := range coreJobs {
		evals = append(evals, &structs.Evaluation{
			ID: l.c.NewID(), Namespace: structs.DefaultNamespace, Priority: structs.CoreJobPriority,
			Type: structs.JobTypeCore, TriggeredBy: structs.EvalTriggerScheduled, JobID: job,
			Status: structs.EvalStatusPending, CreateTime: now, ModifyTime: now,
		})
	}
	return l.srv.UpsertEvals(evals)
}
