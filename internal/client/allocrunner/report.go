package allocrunner

import (
	"reflect"

	"github.com/drover-project/drover/internal/structs"
)

// Client status descriptions.
const (
	DescFailed   = "Failed tasks"
	DescRunning  = "Tasks are running"
	DescPending  = "No tasks have started"
	DescComplete = "All tasks have completed"
)

// ClientStatus derives the alloc's client status from its tasks: any
// failed task fails it; otherwise any running task makes it running, any
// pending one pending, and all dead complete.
func ClientStatus(states map[string]*structs.TaskState) (status, desc string) {
	var failed, running, pending bool
	for _, ts := range states {
		switch {
		case ts.Failed:
			failed = true
		case ts.State == structs.TaskStateRunning:
			running = true
		case ts.State == structs.TaskStatePending:
			pending = true
		}
	}
	switch {
	case failed:
		return structs.AllocClientStatusFailed, DescFailed
	case running:
		return structs.AllocClientStatusRunning, DescRunning
	case pending:
		return structs.AllocClientStatusPending, DescPending
	}
	return structs.AllocClientStatusComplete, DescComplete
}

// report decides deployment health and sends the alloc's client-side
// fields when they differ from the last report.
func (r *Runner) report() {
	vs := r.views()
	r.startChecks(vs)
	r.observeHealth(vs)
	r.syncServices(vs)
	states := make(map[string]*structs.TaskState, len(vs))
	for _, v := range vs {
		states[v.task.Name] = v.state
	}
	status, desc := ClientStatus(states)
	r.mu.Lock()
	a := r.alloc
	upd := &structs.Allocation{
		ID: a.ID, NodeID: a.NodeID, JobID: a.JobID, Namespace: a.Namespace, TaskGroup: a.TaskGroup, EvalID: a.EvalID,
		DeploymentID: a.DeploymentID, ClientStatus: status, ClientDescription: desc, TaskStates: states,
		DeploymentStatus: r.health.decided.Copy(), NetworkStatus: r.networkStatus.Copy(),
	}
	changed := !reflect.DeepEqual(upd, r.lastReport)
	if changed {
		r.lastReport = upd
	}
	r.mu.Unlock()
	if changed {
		r.cfg.OnUpdate(upd.Copy())
	}
}

// ClientAlloc returns the alloc's client-side fields as last reported.
func (r *Runner) ClientAlloc() *structs.Allocation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastReport.Copy()
}

func (r *Runner) observeHealth(vs []view) {
	r.mu.Lock()
	h := r.health
	r.health.arm(r.clock, r.notify)
	ds := h.observe(r.clock, r.clock.Now(), vs, r.checkSnapshot(), r.notify)
	r.mu.Unlock()
	if ds == nil || r.cfg.Store == nil {
		return
	}
	if err := r.cfg.Store.PutDeploymentStatus(r.id, ds); err != nil {
		r.logger.Error("persist deployment health", "error", err)
	}
}
