package scheduler

import (
	"github.com/drover-project/drover/internal/structs"
)

// jobState is everything a job scheduler reads from the snapshot.
type jobState struct {
	job     *structs.Job // nil when purged
	allocs  []*structs.Allocation
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
	if in.allocs, err = st.AllocsByJob(nil, eval.Namespace, eval.JobID, false); err != nil {
		return nil, err
	}
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
