package structs

// The wire form of plans and their results. Every placement of a plan
// carries the plan's job, so a plan sent as it is encodes that job once
// per placement: a follower's plan of 10 placements sent the job 11 times
// to the leader and 10 times back in the result, and the leader decoded
// 10 private copies only to drop them again before the raft entry. The
// sender drops each alloc's copy of the plan's job; the receiver puts the
// plan's own back (Expand). Stopped and preempted allocs keep theirs: the
// applier applies stops by ID but names a preempted alloc's job in its
// eval.

// Compact returns a copy of p to send: placements of p's job, in p's
// version, drop their job. p itself is left as it is.
func (p *Plan) Compact() *Plan {
	c := *p
	c.NodeAllocation = withoutJob(p.NodeAllocation, p.Job)
	return &c
}

// Expand restores a received plan's placements' job (Compact's inverse).
func (p *Plan) Expand() { restoreJob(p.NodeAllocation, p.Job) }

// Compact returns a copy of r to send back for a plan of job.
func (r *PlanResult) Compact(job *Job) *PlanResult {
	c := *r
	c.NodeAllocation = withoutJob(r.NodeAllocation, job)
	return &c
}

// Expand restores a received result's placements' job.
func (r *PlanResult) Expand(job *Job) { restoreJob(r.NodeAllocation, job) }

// withoutJob copies byNode, with job dropped from the allocs that carry
// it (the same version, not only the same pointer: a plan decoded from
// the wire holds copies).
func withoutJob(byNode map[string][]*Allocation, job *Job) map[string][]*Allocation {
	if job == nil || byNode == nil {
		return byNode
	}
	out := make(map[string][]*Allocation, len(byNode))
	for node, allocs := range byNode {
		stripped := make([]*Allocation, len(allocs))
		for i, a := range allocs {
			stripped[i] = a
			if a.Job != nil && a.Job.SameVersion(job) {
				c := *a
				c.Job = nil
				stripped[i] = &c
			}
		}
		out[node] = stripped
	}
	return out
}

// restoreJob gives job to the allocs of byNode that have none.
func restoreJob(byNode map[string][]*Allocation, job *Job) {
	if job == nil {
		return
	}
	for _, allocs := range byNode {
		for _, a := range allocs {
			if a.Job == nil {
				a.Job = job
			}
		}
	}
}
