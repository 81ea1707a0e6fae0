package insight

import (
	"fmt"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

// fits is how many allocs of a group each node takes, from the
// scheduler's own checks of one more alloc (scheduler.DiagnoseGroup): a
// node that fails any check takes none; one that passes takes what its
// free cpu, memory and disk divide into (and its free dynamic ports), at
// most one with distinct_hosts or a static port. The scheduler visits
// every node before it gives up on a placement (groupStack.selectNode),
// so when placements on one node do not change what another takes, it
// places exactly the sum before it blocks. inexact names what breaks that
// independence; the answer is then placed one by one instead.
type fits struct {
	job     *structs.Job
	group   string
	diag    *scheduler.GroupDiagnosis
	per     map[string]int // node ID -> allocs of the group it takes
	live    map[string]int // node ID -> the group's live allocs on it
	sum     int
	missing int // the group's count less its live allocs
	inexact string
}

// fitsOf computes the per-node fits of one more alloc of the group of the
// job (as stored on st) on st.
func fitsOf(st scheduler.State, job *structs.Job, group string) (*fits, error) {
	tg := job.LookupTaskGroup(group)
	if tg == nil {
		return nil, badInput("group: job %q has no task group %q", job.ID, group)
	}
	f := &fits{job: job, group: group, per: map[string]int{}, live: map[string]int{}}
	if f.inexact = shapeNotIndependent(job, tg); f.inexact != "" {
		return f, nil
	}
	diag, err := scheduler.DiagnoseGroup(st, job, group)
	if err != nil {
		return nil, err
	}
	f.diag = diag
	if diag.PreemptionEnabled {
		f.inexact = "preemption is on for " + job.Type + " jobs"
		return f, nil
	}
	allocs, err := st.AllocsByJob(nil, job.Namespace, job.ID, false)
	if err != nil {
		return nil, err
	}
	_, nodes, err := st.NodeSet(nil)
	if err != nil {
		return nil, err
	}
	liveBy := map[string]int{}
	for _, a := range allocs {
		if a.TerminalStatus() {
			continue
		}
		// An alloc the eval would replace or update takes room the
		// sum does not know of.
		n := nodes[a.NodeID]
		switch {
		case n == nil || n.Status != structs.NodeStatusReady:
			f.inexact = "alloc " + shortID(a.ID) + " is on a node that is not ready"
		case isTrue(a.DesiredTransition.Migrate) || isTrue(a.DesiredTransition.Reschedule) || isTrue(a.DesiredTransition.ForceReschedule):
			f.inexact = "alloc " + shortID(a.ID) + " is to be migrated or rescheduled"
		case a.Job != nil && (a.Job.Version != job.Version || a.Job.JobModifyIndex != job.JobModifyIndex) &&
			scheduler.UpdateIsDestructive(a.Job, job, a.TaskGroup, n):
			f.inexact = "alloc " + shortID(a.ID) + " is to be replaced by a new version"
		}
		if f.inexact != "" {
			return f, nil
		}
		liveBy[a.TaskGroup]++
		if a.TaskGroup == group {
			f.live[a.NodeID]++
		}
	}
	for _, other := range job.TaskGroups {
		if other.Name != group && liveBy[other.Name] != other.Count {
			f.inexact = fmt.Sprintf("group %q has %d allocs for a count of %d", other.Name, liveBy[other.Name], other.Count)
			return f, nil
		}
	}
	f.missing = max(tg.Count-liveBy[group], 0)
	static, distinct, dynamic := hasStaticPorts(tg), hasDistinctHosts(diag), dynamicPorts(tg)
	for _, nd := range diag.Nodes {
		if !nd.Fits() {
			continue
		}
		k := MaxHeadroom
		for _, dim := range []struct{ ask, free int64 }{
			{diag.Ask.CpuShares, nd.Free.CpuShares}, {diag.Ask.MemoryMB, nd.Free.MemoryMB}, {diag.Ask.DiskMB, nd.Free.DiskMB},
		} {
			if dim.ask > 0 {
				k = min(k, int(dim.free/dim.ask))
			}
		}
		if static || distinct {
			k = min(k, 1)
		}
		if dynamic > 0 && nd.DynamicFree/dynamic < k {
			// Exact, but the blocker's stand-in allocs claim no
			// dynamic ports, so the diagnosis after them would not see it.
			f.inexact = "node " + nd.Node.Name + " runs out of dynamic ports first"
			return f, nil
		}
		f.per[nd.Node.ID] = k
		f.sum = min(f.sum+k, 2*MaxHeadroom+f.missing)
	}
	return f, nil
}

// shapeNotIndependent names what in the job makes one node's placements
// change what another takes, or what the fits do not count ("" if none).
func shapeNotIndependent(job *structs.Job, tg *structs.TaskGroup) string {
	if job.Stop {
		return "the job is stopped"
	}
	cons := append(append([]*structs.Constraint{}, job.Constraints...), tg.Constraints...)
	for _, t := range tg.Tasks {
		cons = append(cons, t.Constraints...)
		if r := t.Resources; r != nil {
			if r.Cores > 0 {
				return "task " + t.Name + " reserves cores"
			}
			if len(r.Devices) > 0 {
				return "task " + t.Name + " asks devices"
			}
			if hostNetwork(r.Networks) {
				return "task " + t.Name + " asks a host_network"
			}
		}
	}
	if hostNetwork(tg.Networks) {
		return "the group asks a host_network"
	}
	for _, c := range cons {
		if c.Operand == structs.ConstraintDistinctProperty {
			return "distinct_property " + c.LTarget + " limits allocs across nodes"
		}
	}
	for name, v := range tg.Volumes {
		if v.PerAlloc || (v.Type != "" && v.Type != structs.VolumeTypeHost) {
			return "volume " + name + " is per alloc"
		}
	}
	return ""
}

func hostNetwork(nets []*structs.NetworkResource) bool {
	for _, n := range nets {
		for _, p := range append(append([]structs.Port{}, n.ReservedPorts...), n.DynamicPorts...) {
			if p.HostNetwork != "" && p.HostNetwork != "default" {
				return true
			}
		}
	}
	return false
}

// dynamicPorts counts the dynamic ports one alloc of the group asks.
func dynamicPorts(tg *structs.TaskGroup) int {
	n := 0
	for _, nr := range tg.Networks {
		n += len(nr.DynamicPorts)
	}
	for _, t := range tg.Tasks {
		if t.Resources != nil {
			for _, nr := range t.Resources.Networks {
				n += len(nr.DynamicPorts)
			}
		}
	}
	return n
}

func isTrue(b *bool) bool { return b != nil && *b }

// lossMore is the headroom left when node nodeID is lost and nothing but
// the group's own allocs on it is to be placed again.
func (f *fits) lossMore(nodeID string) int {
	return f.sum - f.per[nodeID] - f.missing - f.live[nodeID]
}

// room is the headroom answer from the fits. The blocker is the
// diagnosis of one more alloc once every node holds what it takes: stand-in
// allocs of the group's ask (and static ports) are written into an overlay
// and the scheduler's checks run again.
func (f *fits) room(st scheduler.State, d Deps, withBlocker bool) (*room, error) {
	_, nodes, err := st.NodeSet(nil)
	if err != nil {
		return nil, err
	}
	r := &room{more: min(f.sum-f.missing, MaxHeadroom), perNode: map[string]int{}, ask: f.diag.Ask, bound: upperBound(f.diag), fits: f}
	for _, nd := range f.diag.Nodes {
		if k := f.per[nd.Node.ID]; k > 0 {
			r.perNode[nd.Node.Name] += k
		}
	}
	if f.sum-f.missing >= MaxHeadroom {
		r.blocker = fmt.Sprintf("capped at %d", MaxHeadroom)
		return r, nil
	}
	if !withBlocker {
		return r, nil
	}
	tg := f.job.LookupTaskGroup(f.group)
	raised := f.job.Copy()
	raised.LookupTaskGroup(f.group).Count = tg.Count + r.bound
	after := newOverlay(st)
	after.setJob(raised)
	idSrc := newIDs(d.Seed, "headroom/"+f.job.Namespace+"/"+f.job.ID+"/"+f.group)
	index := uint(tg.Count)
	for _, nd := range f.diag.Nodes {
		for range f.per[nd.Node.ID] {
			after.put(f.standIn(raised, tg, idSrc.next(), nodes[nd.Node.ID], index))
			index++
		}
	}
	d2, err := scheduler.DiagnoseGroup(after, raised, f.group)
	if err != nil {
		return nil, err
	}
	if fx := fixes(d2); len(fx) > 0 {
		r.blocker = fx[0]
	}
	return r, nil
}

// standIn is an alloc of the group on a node as the scheduler would
// grant it, but for the dynamic ports' values.
func (f *fits) standIn(job *structs.Job, tg *structs.TaskGroup, id string, n *structs.Node, index uint) *structs.Allocation {
	ar := &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{}}
	for _, t := range tg.Tasks {
		tr := &structs.AllocatedTaskResources{}
		if r := t.Resources; r != nil {
			tr.CpuShares, tr.MemoryMB, tr.Networks = int64(r.CPU), int64(r.MemoryMB), r.Networks
		}
		ar.Tasks[t.Name] = tr
	}
	ar.Shared.DiskMB = f.diag.Ask.DiskMB
	ar.Shared.Networks = tg.Networks
	return &structs.Allocation{ID: id, Namespace: job.Namespace, JobID: job.ID, Job: job, TaskGroup: tg.Name,
		Name: structs.AllocName(job.ID, tg.Name, index), NodeID: n.ID, NodeName: n.Name,
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending, AllocatedResources: ar}
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
