package scheduler

import (
	"fmt"

	"github.com/drover-project/drover/internal/structs"
)

// allocPreemptedDesc is the desired description of an evicted alloc.
const allocPreemptedDesc = "Preempted by alloc ID %s"

// appendPreemptions evicts victims to make room for the placement a, which
// is about to be appended. The plan applier commits the evictions with the
// placement (and writes the victims' jobs a preemption eval each). The
// usage drops the victims at once, so the room they free is consumed by
// this placement alone: a later placement of the plan can neither count it
// again nor pick the same victims.
func (c *evalContext) appendPreemptions(a *structs.Allocation, victims []*structs.Allocation) {
	if len(victims) == 0 {
		return
	}
	if c.plan.NodePreemptions == nil {
		c.plan.NodePreemptions = map[string][]*structs.Allocation{}
	}
	evicted := make([]*structs.Allocation, 0, len(victims))
	for _, v := range victims {
		e := v.CopySkipJob()
		e.Job = v.Job // read only; the applier names the victim's job in its eval
		e.DesiredStatus = structs.AllocDesiredStatusEvict
		e.DesiredDescription = fmt.Sprintf(allocPreemptedDesc, a.ID)
		e.PreemptedByAllocation = a.ID
		c.plan.NodePreemptions[v.NodeID] = append(c.plan.NodePreemptions[v.NodeID], e)
		evicted = append(evicted, e)
		c.stopped[v.ID] = true
		if u := c.cachedUsage(v.NodeID); u != nil {
			u.remove(v.ID)
		}
		a.PreemptedAllocations = append(a.PreemptedAllocations, v.ID)
	}
	c.generation++
	c.annotatePreemptions(a.TaskGroup, evicted)
}

// annotatePreemptions counts the evictions against the placing group, as
// `job plan` shows them.
func (c *evalContext) annotatePreemptions(group string, evicted []*structs.Allocation) {
	ann := c.plan.Annotations
	if ann == nil {
		ann = &structs.PlanAnnotations{}
		c.plan.Annotations = ann
	}
	if ann.DesiredTGUpdates == nil {
		ann.DesiredTGUpdates = map[string]*structs.DesiredUpdates{}
	}
	du := ann.DesiredTGUpdates[group]
	if du == nil {
		du = &structs.DesiredUpdates{}
		ann.DesiredTGUpdates[group] = du
	}
	du.Preemptions += uint64(len(evicted))
	ann.PreemptedAllocs = append(ann.PreemptedAllocs, evicted...)
}
