package structs

import (
	"fmt"
	"maps"
	"slices"
)

// The wire form of plans between a follower's worker and the leader.
//
// Every placement of a plan carries the plan's job, so a plan sent as it
// is encodes that job once per placement: a follower's plan of 10
// placements sent the job 11 times to the leader, and the leader decoded
// 10 private copies only to drop them again before the raft entry. Each
// placement also carries its placement metrics (the scores of the nodes
// it sampled), about half of its bytes, though the raft entry keeps only
// the last placement's per task group (KeepLastGroupMetrics).
//
// So the follower sends a compact plan (Compact): placements of the
// plan's job without it, and metrics only where the entry will keep them.
// The leader never reads a placement's job (the state store attaches the
// plan's job to placements without one), so the plan stays compact there.
//
// The result names the parts of the plan it accepted instead of sending
// them back (ResultByReference): the follower has the plan, and the
// placements it would get back are its own, less their job and metrics.
// Stopped and preempted allocs keep their job: the applier names a
// preempted alloc's job in its eval.

// Compact returns a copy of p to send: placements of p's job, in p's
// version, drop their job, and only the placement of each task group
// that comes last in the plan's raft entry (nodes in ID order, then each
// node's order) keeps its metrics. p itself is left as it is.
func (p *Plan) Compact() *Plan {
	c := *p
	if p.NodeAllocation == nil {
		return &c
	}
	nodes := slices.Sorted(maps.Keys(p.NodeAllocation))
	var entryOrder []*Allocation
	for _, node := range nodes {
		for _, a := range p.NodeAllocation[node] {
			entryOrder = append(entryOrder, a.WithoutJob(p.Job))
		}
	}
	KeepLastGroupMetrics(entryOrder)
	c.NodeAllocation = make(map[string][]*Allocation, len(nodes))
	for _, node := range nodes {
		n := len(p.NodeAllocation[node])
		c.NodeAllocation[node], entryOrder = entryOrder[:n:n], entryOrder[n:]
	}
	return &c
}

// Expand gives a received result's placements that have no job the job of
// the plan they were placed for.
func (r *PlanResult) Expand(job *Job) {
	if job == nil {
		return
	}
	for _, allocs := range r.NodeAllocation {
		for _, a := range allocs {
			if a.Job == nil {
				a.Job = job
			}
		}
	}
}

// WithoutJob returns a, or a shallow copy of it without its job when that
// is job in the same version (a copy decoded from the wire counts).
func (a *Allocation) WithoutJob(job *Job) *Allocation {
	if a.Job == nil || job == nil || !a.Job.SameVersion(job) {
		return a
	}
	c := *a
	c.Job = nil
	return &c
}

// PlanAcceptance names the parts of a plan that its result accepted, for
// a result sent back to the worker that has the plan.
type PlanAcceptance struct {
	// Nodes whose placements, stops and preemptions were accepted.
	Placements, Stops, Preemptions []string
	// Deployment and DeploymentUpdates: the plan's were accepted.
	Deployment, DeploymentUpdates bool
}

// ByReference splits r, the result of plan, into the result without the
// parts it took from plan as they are and the names of those parts. ok is
// false when r holds anything else (then r travels whole).
func (r *PlanResult) ByReference(plan *Plan) (rest *PlanResult, accepted *PlanAcceptance, ok bool) {
	accepted = &PlanAcceptance{}
	var okA, okU, okP bool
	if accepted.Placements, okA = acceptedNodes(r.NodeAllocation, plan.NodeAllocation); !okA {
		return nil, nil, false
	}
	if accepted.Stops, okU = acceptedNodes(r.NodeUpdate, plan.NodeUpdate); !okU {
		return nil, nil, false
	}
	if accepted.Preemptions, okP = acceptedNodes(r.NodePreemptions, plan.NodePreemptions); !okP {
		return nil, nil, false
	}
	if r.Deployment != nil && r.Deployment != plan.Deployment {
		return nil, nil, false
	}
	if len(r.DeploymentUpdates) > 0 && !sameSlice(r.DeploymentUpdates, plan.DeploymentUpdates) {
		return nil, nil, false
	}
	accepted.Deployment = r.Deployment != nil
	accepted.DeploymentUpdates = len(r.DeploymentUpdates) > 0
	c := *r
	c.NodeAllocation, c.NodeUpdate, c.NodePreemptions = nil, nil, nil
	c.Deployment, c.DeploymentUpdates = nil, nil
	return &c, accepted, true
}

// acceptedNodes lists the nodes of result, sorted; ok is false unless
// each node's part is the plan's own slice.
func acceptedNodes(result, plan map[string][]*Allocation) ([]string, bool) {
	var nodes []string
	for node, allocs := range result {
		if len(allocs) == 0 {
			continue
		}
		if !sameSlice(allocs, plan[node]) {
			return nil, false
		}
		nodes = append(nodes, node)
	}
	slices.Sort(nodes)
	return nodes, true
}

// sameSlice reports whether a and b are one slice (same array, same length).
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// Resolve puts back into r the parts of plan that accepted names (the
// sender's own plan, with its jobs and metrics). It fails if plan lacks
// one of them: the result was not for this plan.
func (r *PlanResult) Resolve(plan *Plan, accepted *PlanAcceptance) error {
	var err error
	if r.NodeAllocation, err = planParts(plan.NodeAllocation, accepted.Placements); err != nil {
		return fmt.Errorf("placements: %w", err)
	}
	if r.NodeUpdate, err = planParts(plan.NodeUpdate, accepted.Stops); err != nil {
		return fmt.Errorf("stops: %w", err)
	}
	if r.NodePreemptions, err = planParts(plan.NodePreemptions, accepted.Preemptions); err != nil {
		return fmt.Errorf("preemptions: %w", err)
	}
	if accepted.Deployment {
		if plan.Deployment == nil {
			return fmt.Errorf("deployment accepted but the plan has none")
		}
		r.Deployment = plan.Deployment
	}
	if accepted.DeploymentUpdates {
		r.DeploymentUpdates = plan.DeploymentUpdates
	}
	return nil
}

func planParts(plan map[string][]*Allocation, nodes []string) (map[string][]*Allocation, error) {
	parts := make(map[string][]*Allocation, len(nodes))
	for _, node := range nodes {
		allocs := plan[node]
		if len(allocs) == 0 {
			return nil, fmt.Errorf("node %s accepted but the plan has nothing for it", node)
		}
		parts[node] = allocs
	}
	return parts, nil
}
