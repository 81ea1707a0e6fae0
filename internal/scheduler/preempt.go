package scheduler

import (
	"cmp"
	"slices"

	"github.com/drover-project/drover/internal/structs"
)

// PreemptionPriorityDelta is how much lower a job's priority must be for
// its allocs to be preempted. Without a gap, jobs of nearly equal priority
// would evict each other back and forth as each one's preemption eval
// runs; a gap makes preemption a deliberate statement of importance.
const PreemptionPriorityDelta = 10

// preemptionEnabled reads the cluster's preemption switch for a job type.
// System jobs preempt by default (they must run on every node); the others
// only when an operator opts in.
func preemptionEnabled(cfg *structs.SchedulerConfiguration, jobType string) bool {
	if cfg == nil {
		cfg = structs.DefaultSchedulerConfiguration()
	}
	p := cfg.PreemptionConfig
	switch jobType {
	case structs.JobTypeSystem:
		return p.SystemSchedulerEnabled
	case structs.JobTypeSysBatch:
		return p.SysBatchSchedulerEnabled
	case structs.JobTypeBatch:
		return p.BatchSchedulerEnabled
	case structs.JobTypeService:
		return p.ServiceSchedulerEnabled
	}
	return false
}

// preemptor finds the allocs one job may evict. It exists only when
// preemption is enabled for the job's type, and is consulted only after a
// placement found no node with room, so it costs nothing otherwise.
type preemptor struct {
	ctx      *evalContext
	job      structs.NamespacedID
	priority int
	jobPrio  map[structs.NamespacedID]int // priorities of jobs looked up in the state; -1: unknown
}

// newPreemptor returns nil when the job may not preempt.
func newPreemptor(ctx *evalContext, job *structs.Job) *preemptor {
	if job == nil || !preemptionEnabled(ctx.cfg, job.Type) {
		return nil
	}
	return &preemptor{
		ctx: ctx, priority: job.Priority,
		job:     structs.NamespacedID{Namespace: job.Namespace, ID: job.ID},
		jobPrio: map[structs.NamespacedID]int{},
	}
}

// victim is a preemptible alloc and what evicting it frees.
type victim struct {
	alloc    *structs.Allocation
	priority int
	frees    structs.ComparableResources
}

// candidates are the node's allocs this job may evict: other jobs' allocs,
// at least PreemptionPriorityDelta lower in priority. The usage holds only
// allocs the plan keeps, so allocs already stopped or preempted by this
// plan are never offered twice. Lowest priority first, then by ID so the
// choice is deterministic.
func (p *preemptor) candidates(u *nodeUsage) []*victim {
	var out []*victim
	for _, a := range u.allocs {
		if prio, ok := p.preemptible(a); ok {
			out = append(out, &victim{alloc: a, priority: prio, frees: *a.AllocatedResources.Comparable()})
		}
	}
	slices.SortFunc(out, func(a, b *victim) int {
		return cmp.Or(cmp.Compare(a.priority, b.priority), cmp.Compare(a.alloc.ID, b.alloc.ID))
	})
	return out
}

// preemptible reports whether the alloc may be evicted, with its priority.
func (p *preemptor) preemptible(a *structs.Allocation) (int, bool) {
	if a.Namespace == p.job.Namespace && a.JobID == p.job.ID {
		return 0, false
	}
	prio := p.allocPriority(a)
	return prio, prio >= 0 && prio <= p.priority-PreemptionPriorityDelta
}

// allocPriority is the priority of the alloc's job: its own copy, else the
// stored job; -1 when neither is known (such an alloc is left alone).
func (p *preemptor) allocPriority(a *structs.Allocation) int {
	if a.Job != nil {
		return a.Job.Priority
	}
	key := structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}
	if prio, ok := p.jobPrio[key]; ok {
		return prio
	}
	prio := -1
	if j, err := p.ctx.state.JobByID(nil, a.Namespace, a.JobID); err == nil && j != nil {
		prio = j.Priority
	}
	p.jobPrio[key] = prio
	return prio
}
