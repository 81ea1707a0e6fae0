package structs

// The wire form of plans. Every placement of a plan carries the plan's
// job, so a plan sent as it is encodes that job once per placement: a
// follower's plan of 10 placements sent the job 11 times to the leader,
// and the leader decoded 10 private copies only to drop them again before
// the raft entry. The follower drops each placement's copy (Compact). The
// leader never reads a placement's job (the state store attaches the
// plan's job to placements without one), so the plan stays compact there
// and so do the placements in its result; the follower puts its job back
// into the result (PlanResult.Expand). Stopped and preempted allocs keep
// theirs: the applier names a preempted alloc's job in its eval.

// Compact returns a copy of p to send: placements of p's job, in p's
// version, drop their job. p itself is left as it is.
func (p *Plan) Compact() *Plan {
	c := *p
	if p.Job == nil || p.NodeAllocation == nil {
		return &c
	}
	c.NodeAllocation = make(map[string][]*Allocation, len(p.NodeAllocation))
	for node, allocs := range p.NodeAllocation {
		stripped := make([]*Allocation, len(allocs))
		for i, a := range allocs {
			stripped[i] = a.WithoutJob(p.Job)
		}
		c.NodeAllocation[node] = stripped
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
