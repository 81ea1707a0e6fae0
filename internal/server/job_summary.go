package server

import (
	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// SummarizeJob computes a job's summary from its current allocs and the
// queued counts of its latest processed eval. It is derived on read, so it
// can never drift from the allocs.
func SummarizeJob(ws memdb.WatchSet, st *state.StateStore, job *structs.Job) (*structs.JobSummary, error) {
	sum := &structs.JobSummary{JobID: job.ID, Namespace: job.Namespace, Summary: map[string]structs.TaskGroupSummary{},
		CreateIndex: job.CreateIndex, ModifyIndex: job.ModifyIndex}
	for _, tg := range job.TaskGroups {
		sum.Summary[tg.Name] = structs.TaskGroupSummary{}
	}
	allocs, err := st.AllocsByJob(ws, job.Namespace, job.ID, false)
	if err != nil {
		return nil, err
	}
	for _, a := range allocs {
		g := sum.Summary[a.TaskGroup]
		countAlloc(&g, a)
		sum.Summary[a.TaskGroup] = g
		sum.ModifyIndex = max(sum.ModifyIndex, a.ModifyIndex)
	}
	if err := addQueued(ws, st, job, sum); err != nil {
		return nil, err
	}
	if job.IsMultiInstanceParent() {
		children, err := summarizeChildren(ws, st, job)
		if err != nil {
			return nil, err
		}
		sum.Children = children
	}
	return sum, nil
}

func countAlloc(g *structs.TaskGroupSummary, a *structs.Allocation) {
	switch a.ClientStatus {
	case structs.AllocClientStatusPending:
		g.Starting++
	case structs.AllocClientStatusRunning:
		g.Running++
	case structs.AllocClientStatusComplete:
		g.Complete++
	case structs.AllocClientStatusFailed:
		g.Failed++
	case structs.AllocClientStatusLost:
		g.Lost++
	case structs.AllocClientStatusUnknown:
		g.Unknown++
	}
}

// addQueued takes the queued counts of the newest processed eval.
func addQueued(ws memdb.WatchSet, st *state.StateStore, job *structs.Job, sum *structs.JobSummary) error {
	evals, err := st.EvalsByJob(ws, job.Namespace, job.ID)
	if err != nil {
		return err
	}
	var latest *structs.Evaluation
	for _, e := range evals {
		if e.Status == structs.EvalStatusComplete && (latest == nil || e.ModifyIndex > latest.ModifyIndex) {
			latest = e
		}
	}
	if latest == nil {
		return nil
	}
	for name, n := range latest.QueuedAllocations {
		if g, ok := sum.Summary[name]; ok {
			g.Queued = n
			sum.Summary[name] = g
		}
	}
	return nil
}

func summarizeChildren(ws memdb.WatchSet, st *state.StateStore, parent *structs.Job) (*structs.JobChildrenSummary, error) {
	jobs, err := st.Jobs(ws, parent.Namespace)
	if err != nil {
		return nil, err
	}
	c := &structs.JobChildrenSummary{}
	for _, j := range jobs {
		if j.ParentID != parent.ID {
			continue
		}
		switch j.Status {
		case structs.JobStatusPending:
			c.Pending++
		case structs.JobStatusRunning:
			c.Running++
		default:
			c.Dead++
		}
	}
	return c, nil
}
