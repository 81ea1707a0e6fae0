package apiconv

import (
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
)

// Nomad still fills an allocation's pre-0.9 resource fields, and its CLI
// reads them: `node status <id>` sums Resources over a node's allocs and
// `alloc status` prints its Task Resources section from TaskResources. They
// are derived from AllocatedResources, the one source of truth.

// legacyAllocResources is the sum of the tasks' resources plus the group's
// shared disk and networks.
func legacyAllocResources(r *structs.AllocatedResources) *api.Resources {
	if r == nil {
		return nil
	}
	var cpu, cores, mem, memMax int
	var networks []*api.NetworkResource
	for _, t := range r.Tasks {
		cpu += int(t.CpuShares)
		cores += len(t.ReservedCores)
		mem += int(t.MemoryMB)
		memMax += int(max(t.MemoryMaxMB, t.MemoryMB))
		networks = append(networks, networksFromStructs(t.Networks)...)
	}
	networks = append(networks, networksFromStructs(r.Shared.Networks)...)
	disk := int(r.Shared.DiskMB)
	out := &api.Resources{CPU: &cpu, Cores: &cores, MemoryMB: &mem, DiskMB: &disk, Networks: networks}
	if memMax > mem {
		out.MemoryMaxMB = &memMax
	}
	return out
}

// legacyTaskResources is each task's own share, as Nomad lists it per task.
func legacyTaskResources(r *structs.AllocatedResources) map[string]*api.Resources {
	if r == nil || len(r.Tasks) == 0 {
		return nil
	}
	out := make(map[string]*api.Resources, len(r.Tasks))
	for name, t := range r.Tasks {
		cpu, cores, mem := int(t.CpuShares), len(t.ReservedCores), int(t.MemoryMB)
		res := &api.Resources{CPU: &cpu, Cores: &cores, MemoryMB: &mem, Networks: networksFromStructs(t.Networks)}
		if t.MemoryMaxMB > t.MemoryMB {
			memMax := int(t.MemoryMaxMB)
			res.MemoryMaxMB = &memMax
		}
		out[name] = res
	}
	return out
}
