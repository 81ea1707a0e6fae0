package planapply

import (
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// jobLookup finds the job of a preempted alloc that does not carry one;
// *state.StateSnapshot satisfies it.
type jobLookup interface {
	StateReader
	JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error)
}

// buildRequest turns the accepted part of a plan into the one raft entry
// that commits it. Nodes are walked in ID order so the entry, and hence
// every server's state, is the same whatever Go's map order.
func buildRequest(snap jobLookup, plan *structs.Plan, res *structs.PlanResult, now int64, newID func() string) (*structs.ApplyPlanResultsRequest, error) {
	req := &structs.ApplyPlanResultsRequest{
		Job:               plan.Job,
		Deployment:        res.Deployment,
		DeploymentUpdates: res.DeploymentUpdates,
		EvalID:            plan.EvalID,
		UpdatedAt:         now,
	}
	for _, nodeID := range sortedKeys(res.NodeAllocation) {
		for _, a := range res.NodeAllocation[nodeID] {
			// Without the plan's job: the state store attaches it, and a
			// job per alloc would make a large plan's entry many times
			// larger.
			req.AllocsUpdated = append(req.AllocsUpdated, a.WithoutJob(plan.Job))
		}
	}
	structs.KeepLastGroupMetrics(req.AllocsUpdated)
	if len(res.RejectedNodes) > 0 { // else the entry holds every placement
		keepGroupMetricsOfRejected(req.AllocsUpdated, plan)
	}
	for _, nodeID := range sortedKeys(res.NodeUpdate) {
		for _, a := range res.NodeUpdate[nodeID] {
			req.AllocsStopped = append(req.AllocsStopped, stopDiff(a))
		}
	}
	var err error
	req.AllocsPreempted, req.PreemptionEvals, err = preemptions(snap, res, now, newID)
	return req, err
}

// stopDiff keeps only what the state store applies for a stop
// (state's stopAlloc): the rest of the plan's copy may be stale, and
// sending it would only bloat the raft entry.
func stopDiff(a *structs.Allocation) *structs.Allocation {
	return &structs.Allocation{
		ID:                 a.ID,
		DesiredStatus:      a.DesiredStatus,
		DesiredDescription: a.DesiredDescription,
		ClientStatus:       a.ClientStatus,
		FollowupEvalID:     a.FollowupEvalID,
	}
}

// preemptDiff keeps only what the state store applies for an eviction
// (state's preemptAlloc).
func preemptDiff(a *structs.Allocation) *structs.Allocation {
	return &structs.Allocation{
		ID:                    a.ID,
		DesiredStatus:         structs.AllocDesiredStatusEvict,
		DesiredDescription:    a.DesiredDescription,
		PreemptedByAllocation: a.PreemptedByAllocation,
	}
}

// preemptions returns the evictions to commit and one pending eval per
// job that lost allocs, so that job gets rescheduled elsewhere. The evals
// deliberately carry no PreviousEval: the preempting plan's eval did not
// cause the victim job's state in any way its history should show (see
// docs/design.md, transition T13).
func preemptions(snap jobLookup, res *structs.PlanResult, now int64, newID func() string) ([]*structs.Allocation, []*structs.Evaluation, error) {
	var diffs []*structs.Allocation
	var evals []*structs.Evaluation
	seen := map[structs.NamespacedID]bool{}
	for _, nodeID := range sortedKeys(res.NodePreemptions) {
		for _, a := range res.NodePreemptions[nodeID] {
			diffs = append(diffs, preemptDiff(a))
			key := structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}
			if seen[key] {
				continue
			}
			seen[key] = true
			job, err := preemptedJob(snap, a)
			if err != nil {
				return nil, nil, err
			}
			if job != nil {
				evals = append(evals, preemptionEval(job, now, newID()))
			}
		}
	}
	return diffs, evals, nil
}

// preemptedJob finds the job of a preempted alloc: its own copy, else the
// stored alloc's, else the stored job. Nil means the job is gone, and
// there is nothing to reschedule.
func preemptedJob(snap jobLookup, a *structs.Allocation) (*structs.Job, error) {
	if a.Job != nil {
		return a.Job, nil
	}
	stored, err := snap.AllocByID(nil, a.ID)
	if err != nil {
		return nil, err
	}
	if stored != nil && stored.Job != nil {
		return stored.Job, nil
	}
	return snap.JobByID(nil, a.Namespace, a.JobID)
}

func preemptionEval(job *structs.Job, now int64, id string) *structs.Evaluation {
	return &structs.Evaluation{
		ID:             id,
		Namespace:      job.Namespace,
		Priority:       job.Priority,
		Type:           job.Type,
		TriggeredBy:    structs.EvalTriggerPreemption,
		JobID:          job.ID,
		JobModifyIndex: job.JobModifyIndex,
		Status:         structs.EvalStatusPending,
		CreateTime:     now,
		ModifyTime:     now,
	}
}

func sortedKeys(m map[string][]*structs.Allocation) []string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if len(v) > 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// hasChanges reports whether the result has anything to commit.
func hasChanges(res *structs.PlanResult) bool {
	return len(res.NodeAllocation) > 0 || len(res.NodeUpdate) > 0 || len(res.NodePreemptions) > 0 ||
		res.Deployment != nil || len(res.DeploymentUpdates) > 0
}
