package apiconv

import (
	"maps"
	"slices"

	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// AllocFromStructs converts an allocation for output, including its job.
func AllocFromStructs(a *structs.Allocation) *api.Allocation {
	if a == nil {
		return nil
	}
	out := byName[api.Allocation](a)
	out.Job = JobFromStructs(a.Job)
	out.AllocatedResources = AllocatedResourcesFromStructs(a.AllocatedResources)
	out.Resources = legacyAllocResources(a.AllocatedResources)
	out.TaskResources = legacyTaskResources(a.AllocatedResources)
	out.Metrics = allocMetricFromStructs(a.Metrics)
	out.DesiredTransition = desiredTransitionFromStructs(a.DesiredTransition)
	out.TaskStates = taskStatesFromStructs(a.TaskStates)
	out.DeploymentStatus = allocDeploymentStatusFromStructs(a.DeploymentStatus)
	out.RescheduleTracker = rescheduleTrackerFromStructs(a.RescheduleTracker)
	out.PreemptedAllocations = slices.Clone(a.PreemptedAllocations)
	out.NetworkStatus = allocNetworkStatusFromStructs(a.NetworkStatus)
	return out
}

func allocNetworkStatusFromStructs(s *structs.AllocNetworkStatus) *api.AllocNetworkStatus {
	if s == nil {
		return nil
	}
	out := byName[api.AllocNetworkStatus](s)
	out.DNS = dnsFromStructs(s.DNS)
	return out
}

// AllocStubFromStructs converts an allocation to its list form. Like Nomad,
// the list carries resources only when asked (?resources=true), as they are
// the bulk of an alloc.
func AllocStubFromStructs(a *structs.Allocation, withResources bool) *api.AllocationListStub {
	if a == nil {
		return nil
	}
	stub := byName[api.AllocationListStub](a)
	stub.TaskStates = taskStatesFromStructs(a.TaskStates)
	stub.DeploymentStatus = allocDeploymentStatusFromStructs(a.DeploymentStatus)
	stub.RescheduleTracker = rescheduleTrackerFromStructs(a.RescheduleTracker)
	stub.PreemptedAllocations = slices.Clone(a.PreemptedAllocations)
	if a.Job != nil {
		stub.JobType = a.Job.Type
		stub.JobVersion = a.Job.Version
	}
	if withResources {
		stub.AllocatedResources = AllocatedResourcesFromStructs(a.AllocatedResources)
	}
	return stub
}

// AllocatedResourcesFromStructs converts what the scheduler granted an
// alloc; exported for endpoints that return resources on their own.
func AllocatedResourcesFromStructs(r *structs.AllocatedResources) *api.AllocatedResources {
	if r == nil {
		return nil
	}
	return &api.AllocatedResources{
		Tasks: convertMap(r.Tasks, allocatedTaskFromStructs),
		Shared: api.AllocatedSharedResources{
			DiskMB:   r.Shared.DiskMB,
			Networks: networksFromStructs(r.Shared.Networks),
			Ports:    convertSlice(r.Shared.Ports, portMappingFromStructs),
		},
	}
}

// allocatedTaskFromStructs cannot carry ReservedCores: the api's
// AllocatedCpuResources has only CpuShares.
func allocatedTaskFromStructs(t *structs.AllocatedTaskResources) *api.AllocatedTaskResources {
	return &api.AllocatedTaskResources{
		Cpu:      api.AllocatedCpuResources{CpuShares: t.CpuShares},
		Memory:   api.AllocatedMemoryResources{MemoryMB: t.MemoryMB, MemoryMaxMB: t.MemoryMaxMB},
		Networks: networksFromStructs(t.Networks),
		Devices: convertPtrs(t.Devices, func(d *structs.AllocatedDeviceResource) *api.AllocatedDeviceResource {
			return &api.AllocatedDeviceResource{Vendor: d.Vendor, Type: d.Type, Name: d.Name, DeviceIDs: slices.Clone(d.DeviceIDs)}
		}),
	}
}

func portMappingFromStructs(p structs.AllocatedPortMapping) api.PortMapping {
	return api.PortMapping{Label: p.Label, Value: p.Value, To: p.To, HostIP: p.HostIP}
}

func desiredTransitionFromStructs(d structs.DesiredTransition) api.DesiredTransition {
	return *byName[api.DesiredTransition](&d)
}

func taskStatesFromStructs(in map[string]*structs.TaskState) map[string]*api.TaskState {
	return convertMap(in, func(s *structs.TaskState) *api.TaskState {
		out := byName[api.TaskState](s)
		out.Events = convertPtrs(s.Events, taskEventFromStructs)
		return out
	})
}

func taskEventFromStructs(e *structs.TaskEvent) *api.TaskEvent {
	out := byName[api.TaskEvent](e)
	out.Details = maps.Clone(e.Details)
	return out
}

func allocDeploymentStatusFromStructs(s *structs.AllocDeploymentStatus) *api.AllocDeploymentStatus {
	return byName[api.AllocDeploymentStatus](s)
}

// rescheduleTrackerFromStructs cannot carry each event's Delay: the api's
// RescheduleEvent has no such field.
func rescheduleTrackerFromStructs(t *structs.RescheduleTracker) *api.RescheduleTracker {
	if t == nil {
		return nil
	}
	return &api.RescheduleTracker{
		Events: convertPtrs(t.Events, func(e *structs.RescheduleEvent) *api.RescheduleEvent {
			return &api.RescheduleEvent{RescheduleTime: e.RescheduleTime, PrevAllocID: e.PrevAllocID, PrevNodeID: e.PrevNodeID}
		}),
	}
}
