package sim

import (
	"fmt"
	"sort"

	"github.com/drover-project/drover/internal/structs"
)

// Health behaviours a job's allocs show (in deployments, and for service
// allocs outside one, as the real client judges them by their migrate
// block).
const (
	HealthHealthy   = "healthy"   // report healthy as soon as running (default)
	HealthUnhealthy = "unhealthy" // report unhealthy
	HealthNone      = "none"      // never report health
)

// clientUpdate is what a client reports for one of its allocs, or nil when
// nothing changed on the client: pending allocs start running (healthy in
// a deployment or as a service alloc, per the job's health behaviour),
// allocs the server stopped complete.
func (s *Sim) clientUpdate(a *structs.Allocation) *structs.Allocation {
	if a.ClientTerminalStatus() {
		return nil
	}
	if a.ServerTerminalStatus() {
		return s.taskUpdate(a, structs.AllocClientStatusComplete, false)
	}
	if a.ClientStatus == structs.AllocClientStatusUnknown {
		// The server marked it unknown while the node was disconnected;
		// the reconnected client reports it still running, as it was.
		u := s.taskUpdate(a, structs.AllocClientStatusRunning, false)
		if len(a.TaskStates) > 0 {
			u.TaskStates = a.Copy().TaskStates
		}
		return u
	}
	// Health is decided in a deployment and, as the real client does (its
	// migrate block), for every service alloc outside one.
	judged := a.DeploymentID != "" || a.Job != nil && a.Job.Type == structs.JobTypeService
	needsHealth := judged && (a.DeploymentStatus == nil || a.DeploymentStatus.Healthy == nil)
	health := s.healthOf(a.JobID)
	if a.ClientStatus == structs.AllocClientStatusRunning && (!needsHealth || health == HealthNone) {
		return nil
	}
	u := s.taskUpdate(a, structs.AllocClientStatusRunning, false)
	if needsHealth && health != HealthNone {
		healthy := health == HealthHealthy
		u.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: &healthy, Timestamp: s.Now()}
	}
	return u
}

// taskUpdate builds a client update with every task in the matching state.
func (s *Sim) taskUpdate(a *structs.Allocation, status string, failed bool) *structs.Allocation {
	now := s.Now()
	states := map[string]*structs.TaskState{}
	for _, name := range taskNames(a) {
		ts := &structs.TaskState{State: "running", StartedAt: now, Failed: failed}
		if prev := a.TaskStates[name]; prev != nil {
			ts.Restarts, ts.LastRestart = prev.Restarts, prev.LastRestart // the client keeps counting
		}
		if status != structs.AllocClientStatusRunning {
			ts.State, ts.FinishedAt = "dead", now
		}
		states[name] = ts
	}
	return &structs.Allocation{ID: a.ID, ClientStatus: status, TaskStates: states}
}

func taskNames(a *structs.Allocation) []string {
	tg := a.Group()
	if tg == nil {
		return nil
	}
	names := make([]string, 0, len(tg.Tasks))
	for _, t := range tg.Tasks {
		names = append(names, t.Name)
	}
	return names
}

func (s *Sim) healthOf(jobID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j, ok := s.jobs[jobID]; ok && j.Health != "" {
		return j.Health
	}
	return HealthHealthy
}

// FailAlloc makes one running alloc of the job fail on its client (the
// first by node name, then alloc name): the server writes an alloc-failure
// eval and the scheduler reschedules it per the job's policy.
func (s *Sim) FailAlloc(jobID string) error {
	a, n, err := s.runningAlloc(jobID)
	if err != nil {
		return err
	}
	if err := n.send([]*structs.Allocation{s.taskUpdate(a, structs.AllocClientStatusFailed, true)}); err != nil {
		return err
	}
	return s.RunUntilIdle()
}

// runningAlloc picks the job's first running alloc on a live node.
func (s *Sim) runningAlloc(jobID string) (*structs.Allocation, *Node, error) {
	allocs, err := s.srv.State().AllocsByJob(nil, structs.DefaultNamespace, jobID, false)
	if err != nil {
		return nil, nil, err
	}
	byID := map[string]*Node{}
	for _, n := range s.sortedNodes() {
		byID[n.ID] = n
	}
	sort.Slice(allocs, func(i, j int) bool {
		ni, nj := byID[allocs[i].NodeID], byID[allocs[j].NodeID]
		if ni != nil && nj != nil && ni.Name != nj.Name {
			return ni.Name < nj.Name
		}
		return allocs[i].Name < allocs[j].Name
	})
	for _, a := range allocs {
		if n := byID[a.NodeID]; n != nil && !n.isSilent() && a.ClientStatus == structs.AllocClientStatusRunning && !a.ServerTerminalStatus() {
			return a, n, nil
		}
	}
	return nil, nil, fmt.Errorf("sim: job %q has no running alloc", jobID)
}
