package scheduler

import (
	"github.com/drover-project/drover/internal/structs"
)

// jobState is everything a job scheduler reads from the snapshot.
type jobState struct {
	job *structs.Job // nil when purged
	// allocs are the allocs of the job's current incarnation (every alloc
	// under the job ID when the job is purged).
	allocs []*structs.Allocation
	// older are the live allocs of an earlier incarnation of the job ID: a
	// job purged and registered again before the purge's eval ran. They
	// are never counted for the job (a finished batch alloc of the old one
	// must not finish the new one, a failed one is not rescheduled, their
	// names, deployments and versions are not the new job's); they are
	// only stopped (stopOlder).
	older   []*structs.Allocation
	nodes   []*structs.Node          // shared with other evals: read only
	nodeMap map[string]*structs.Node // shared with other evals: read only
	cfg     *structs.SchedulerConfiguration
	latest  *structs.Deployment
}

func readJobState(st State, eval *structs.Evaluation) (*jobState, error) {
	in := &jobState{}
	var err error
	if in.job, err = st.JobByID(nil, eval.Namespace, eval.JobID); err != nil {
		return nil, err
	}
	// Every alloc of the job ID, whatever incarnation, as Nomad's
	// schedulers read them: the eval of a purge may run after the same ID
	// was registered again, and then no later eval would ever see, and
	// stop, the purged job's allocs.
	all, err := st.AllocsByJob(nil, eval.Namespace, eval.JobID, true)
	if err != nil {
		return nil, err
	}
	in.allocs, in.older = splitIncarnations(in.job, all)
	if in.nodes, in.nodeMap, err = st.NodeSet(nil); err != nil {
		return nil, err
	}
	if in.cfg, err = st.SchedulerConfig(nil); err != nil {
		return nil, err
	}
	if in.latest, err = st.LatestDeploymentByJobID(nil, eval.Namespace, eval.JobID); err != nil {
		return nil, err
	}
	return in, nil
}

// splitIncarnations separates the allocs of job's incarnation (its
// CreateIndex) from the live allocs of earlier ones; terminal allocs of
// earlier incarnations are dropped. With the job purged, every alloc is
// its own.
func splitIncarnations(job *structs.Job, all []*structs.Allocation) (cur, older []*structs.Allocation) {
	if job == nil {
		return all, nil
	}
	cur = all[:0:0]
	for _, a := range all {
		switch {
		case a.Job == nil || a.Job.CreateIndex == job.CreateIndex:
			cur = append(cur, a)
		case !a.TerminalStatus():
			older = append(older, a)
		}
	}
	return cur, older
}

// allocJobPurged is the description of a stopped alloc of an earlier
// incarnation of its job ID.
const allocJobPurged = "alloc not needed since its job was purged"

// stopOlder puts a stop of every live alloc of an earlier incarnation of
// the job into the plan, counted in the group's DesiredUpdates.
func stopOlder(ctx *evalContext, older []*structs.Allocation, desired map[string]*structs.DesiredUpdates) {
	for _, a := range older {
		ctx.appendStop(a, allocJobPurged, "")
		du := desired[a.TaskGroup]
		if du == nil {
			du = &structs.DesiredUpdates{}
			desired[a.TaskGroup] = du
		}
		du.Stop++
	}
}
