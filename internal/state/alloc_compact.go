package state

import (
	"slices"

	"github.com/drover-project/drover/internal/structs"
)

// Compact storage of allocations.
//
// A cluster of a million allocs keeps them all in memory, so what one alloc
// costs in the store matters more than anywhere else. Allocs of one task
// group are nearly identical: the store keeps what they have in common once
// and lets them share it. Shared objects are immutable like everything read
// from the store, so sharing changes nothing a reader can see, except
// Metrics (below).
//
//   - Job: the stored job version, never a per-alloc copy (sharedJob).
//   - AllocatedResources: one object per distinct value within a write; a
//     plan's allocs of one group version without dynamic ports share it.
//   - Metrics: every alloc of a group placed by one write shares the
//     metrics of the group's last placement in that write. The scheduler's
//     per-placement metrics (scores of the sampled nodes) are what made an
//     alloc cost 6 KiB; one set per group and plan still tells an operator
//     how the placement went.
//   - Strings (IDs, names, statuses) point at one copy per value (intern).
//   - Changes to a stored alloc copy only the top-level struct: nested
//     objects are replaced, never modified, so they stay shared.

// allocShare holds what the allocs of one write transaction share.
type allocShare struct {
	resources map[groupKey][]*structs.AllocatedResources
	metrics   map[groupKey]*structs.AllocMetric
	jobs      map[*structs.Job]*structs.Job // sharedJob's answers
}

// groupKey names a task group of one job version.
type groupKey struct {
	namespace, jobID, group string
	jobVersion              uint64
}

func allocGroupKey(a *structs.Allocation) groupKey {
	k := groupKey{namespace: a.Namespace, jobID: a.JobID, group: a.TaskGroup}
	if a.Job != nil {
		k.jobVersion = a.Job.Version
	}
	return k
}

func (tx *writeTxn) share() *allocShare {
	if tx.allocShare == nil {
		tx.allocShare = &allocShare{
			resources: map[groupKey][]*structs.AllocatedResources{},
			metrics:   map[groupKey]*structs.AllocMetric{},
			jobs:      map[*structs.Job]*structs.Job{},
		}
	}
	return tx.allocShare
}

// shareGroupMetrics makes every alloc of a group in allocs point at one
// copy of the metrics of the group's last placement. It runs before the
// allocs are stored, on the caller's allocs, and only reads them.
func (tx *writeTxn) shareGroupMetrics(allocs []*structs.Allocation) {
	last := map[groupKey]*structs.AllocMetric{}
	for _, a := range allocs {
		if a.Metrics != nil {
			last[allocGroupKey(a)] = a.Metrics
		}
	}
	sh := tx.share()
	for k, m := range last {
		sh.metrics[k] = m.Copy()
	}
}

// storedAlloc returns the copy of a caller's alloc that the store keeps:
// the caller's nested objects are copied (or replaced by shared ones), the
// strings interned when stored (storeAlloc). Job is left to upsertAlloc.
func (tx *writeTxn) storedAlloc(a *structs.Allocation) *structs.Allocation {
	c := *a
	sh := tx.share()
	c.AllocatedResources = sh.sharedResources(allocGroupKey(a), a.AllocatedResources)
	if m, ok := sh.metrics[allocGroupKey(a)]; ok {
		c.Metrics = m // also for the allocs the plan applier sent without
	} else {
		c.Metrics = a.Metrics.Copy()
	}
	c.DesiredTransition = *a.DesiredTransition.Copy()
	c.TaskStates = copyTaskStates(a.TaskStates)
	c.DeploymentStatus = a.DeploymentStatus.Copy()
	c.RescheduleTracker = a.RescheduleTracker.Copy()
	c.PreemptedAllocations = slices.Clone(a.PreemptedAllocations)
	c.NetworkStatus = a.NetworkStatus.Copy()
	return &c
}

func copyTaskStates(m map[string]*structs.TaskState) map[string]*structs.TaskState {
	if m == nil {
		return nil
	}
	c := make(map[string]*structs.TaskState, len(m))
	for k, v := range m {
		c[k] = v.Copy()
	}
	return c
}

// sharedResources returns a stored object equal to r, copying r only when
// no alloc of the group in this write had the same resources.
func (sh *allocShare) sharedResources(k groupKey, r *structs.AllocatedResources) *structs.AllocatedResources {
	if r == nil {
		return nil
	}
	for _, s := range sh.resources[k] {
		if allocatedResourcesEqual(s, r) {
			return s
		}
	}
	c := r.Copy()
	c.Seal()
	// A group with dynamic ports gets a new value per alloc; remember only
	// a few so the comparison stays cheap.
	if len(sh.resources[k]) < 4 {
		sh.resources[k] = append(sh.resources[k], c)
	}
	return c
}

// modifiedAlloc returns a copy of a stored alloc to change: a shallow copy,
// since every nested object of a stored alloc is immutable and a change
// replaces nested objects instead of editing them.
func modifiedAlloc(existing *structs.Allocation) *structs.Allocation {
	c := *existing
	return &c
}

// sharedJob returns the stored object of job's version when the store has
// it (the live job or a tracked version), so allocs never hold their own
// copy of a job; otherwise job itself.
func (tx *writeTxn) sharedJob(job *structs.Job) (*structs.Job, error) {
	if job == nil {
		return nil, nil
	}
	sh := tx.share()
	if j, ok := sh.jobs[job]; ok {
		return j, nil
	}
	j, err := tx.storedJobVersion(job)
	if err != nil {
		return nil, err
	}
	sh.jobs[job] = j
	return j, nil
}

func (tx *writeTxn) storedJobVersion(job *structs.Job) (*structs.Job, error) {
	live, err := tx.jobByID(job.Namespace, job.ID)
	if err != nil {
		return nil, err
	}
	if live != nil && live.SameVersion(job) {
		return live, nil
	}
	v, err := first[structs.Job](tx.Txn, nil, TableJobVersion, "id", job.Namespace, job.ID, job.Version)
	if err != nil {
		return nil, err
	}
	if v != nil && v.SameVersion(job) {
		return v, nil
	}
	return job, nil
}

// internAlloc points the alloc's repeated strings at the store's copies.
func (tx *writeTxn) internAlloc(a *structs.Allocation) {
	in := tx.interner
	a.Namespace = in.intern(a.Namespace)
	a.EvalID = in.intern(a.EvalID)
	a.NodeID = in.intern(a.NodeID)
	a.NodeName = in.intern(a.NodeName)
	a.JobID = in.intern(a.JobID)
	a.TaskGroup = in.intern(a.TaskGroup)
	a.DesiredStatus = in.intern(a.DesiredStatus)
	a.DesiredDescription = in.intern(a.DesiredDescription)
	a.ClientStatus = in.intern(a.ClientStatus)
	a.ClientDescription = in.intern(a.ClientDescription)
	a.DeploymentID = in.intern(a.DeploymentID)
}

// allocatedResourcesEqual compares two grants field by field.
func allocatedResourcesEqual(a, b *structs.AllocatedResources) bool {
	if a == b {
		return true
	}
	if len(a.Tasks) != len(b.Tasks) || a.Shared.DiskMB != b.Shared.DiskMB ||
		!slices.Equal(a.Shared.Ports, b.Shared.Ports) || !networksEqual(a.Shared.Networks, b.Shared.Networks) {
		return false
	}
	for name, ta := range a.Tasks {
		tb, ok := b.Tasks[name]
		if !ok || !taskResourcesEqual(ta, tb) {
			return false
		}
	}
	return true
}

func taskResourcesEqual(a, b *structs.AllocatedTaskResources) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.CpuShares == b.CpuShares && a.MemoryMB == b.MemoryMB && a.MemoryMaxMB == b.MemoryMaxMB &&
		slices.Equal(a.ReservedCores, b.ReservedCores) && networksEqual(a.Networks, b.Networks) &&
		slices.EqualFunc(a.Devices, b.Devices, func(x, y *structs.AllocatedDeviceResource) bool {
			if x == nil || y == nil {
				return x == y
			}
			return x.Vendor == y.Vendor && x.Type == y.Type && x.Name == y.Name && slices.Equal(x.DeviceIDs, y.DeviceIDs)
		})
}

func networksEqual(a, b []*structs.NetworkResource) bool {
	return slices.EqualFunc(a, b, func(x, y *structs.NetworkResource) bool {
		if x == nil || y == nil {
			return x == y
		}
		return x.Mode == y.Mode && x.Device == y.Device && x.CIDR == y.CIDR && x.IP == y.IP &&
			x.MBits == y.MBits && slices.Equal(x.ReservedPorts, y.ReservedPorts) &&
			slices.Equal(x.DynamicPorts, y.DynamicPorts)
	})
}
