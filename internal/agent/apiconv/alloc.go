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
	return &api.Allocation{
		ID:                    a.ID,
		Namespace:             a.Namespace,
		EvalID:                a.EvalID,
		Name:                  a.Name,
		NodeID:                a.NodeID,
		NodeName:              a.NodeName,
		JobID:                 a.JobID,
		Job:                   JobFromStructs(a.Job),
		TaskGroup:             a.TaskGroup,
		AllocatedResources:    AllocatedResourcesFromStructs(a.AllocatedResources),
		Resources:             legacyAllocResources(a.AllocatedResources),
		TaskResources:         legacyTaskResources(a.AllocatedResources),
		Metrics:               allocMetricFromStructs(a.Metrics),
		DesiredStatus:         a.DesiredStatus,
		DesiredDescription:    a.DesiredDescription,
		DesiredTransition:     desiredTransitionFromStructs(a.DesiredTransition),
		ClientStatus:          a.ClientStatus,
		ClientDescription:     a.ClientDescription,
		TaskStates:            taskStatesFromStructs(a.TaskStates),
		DeploymentID:          a.DeploymentID,
		DeploymentStatus:      allocDeploymentStatusFromStructs(a.DeploymentStatus),
		FollowupEvalID:        a.FollowupEvalID,
		PreviousAllocation:    a.PreviousAllocation,
		NextAllocation:        a.NextAllocation,
		RescheduleTracker:     rescheduleTrackerFromStructs(a.RescheduleTracker),
		PreemptedAllocations:  slices.Clone(a.PreemptedAllocations),
		PreemptedByAllocation: a.PreemptedByAllocation,
		CreateIndex:           a.CreateIndex,
		ModifyIndex:           a.ModifyIndex,
		AllocModifyIndex:      a.AllocModifyIndex,
		CreateTime:            a.CreateTime,
		ModifyTime:            a.ModifyTime,
	}
}

// AllocStubFromStructs converts an allocation to its list form. Like Nomad,
// the list carries resources only when asked (?resources=true), as they are
// the bulk of an alloc.
func AllocStubFromStructs(a *structs.Allocation, withResources bool) *api.AllocationListStub {
	if a == nil {
		return nil
	}
	stub := &api.AllocationListStub{
		ID:                    a.ID,
		EvalID:                a.EvalID,
		Name:                  a.Name,
		Namespace:             a.Namespace,
		NodeID:                a.NodeID,
		NodeName:              a.NodeName,
		JobID:                 a.JobID,
		TaskGroup:             a.TaskGroup,
		DesiredStatus:         a.DesiredStatus,
		DesiredDescription:    a.DesiredDescription,
		ClientStatus:          a.ClientStatus,
		ClientDescription:     a.ClientDescription,
		TaskStates:            taskStatesFromStructs(a.TaskStates),
		DeploymentStatus:      allocDeploymentStatusFromStructs(a.DeploymentStatus),
		FollowupEvalID:        a.FollowupEvalID,
		NextAllocation:        a.NextAllocation,
		RescheduleTracker:     rescheduleTrackerFromStructs(a.RescheduleTracker),
		PreemptedAllocations:  slices.Clone(a.PreemptedAllocations),
		PreemptedByAllocation: a.PreemptedByAllocation,
		CreateIndex:           a.CreateIndex,
		ModifyIndex:           a.ModifyIndex,
		CreateTime:            a.CreateTime,
		ModifyTime:            a.ModifyTime,
	}
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
	}
}

func portMappingFromStructs(p structs.AllocatedPortMapping) api.PortMapping {
	return api.PortMapping{Label: p.Label, Value: p.Value, To: p.To, HostIP: p.HostIP}
}

func desiredTransitionFromStructs(d structs.DesiredTransition) api.DesiredTransition {
	return api.DesiredTransition{
		Migrate:         clonePtr(d.Migrate),
		Reschedule:      clonePtr(d.Reschedule),
		ForceReschedule: clonePtr(d.ForceReschedule),
		NoShutdownDelay: clonePtr(d.NoShutdownDelay),
	}
}

func taskStatesFromStructs(in map[string]*structs.TaskState) map[string]*api.TaskState {
	return convertMap(in, func(s *structs.TaskState) *api.TaskState {
		return &api.TaskState{
			State:       s.State,
			Failed:      s.Failed,
			Restarts:    s.Restarts,
			LastRestart: s.LastRestart,
			StartedAt:   s.StartedAt,
			FinishedAt:  s.FinishedAt,
			Events:      convertPtrs(s.Events, taskEventFromStructs),
		}
	})
}

func taskEventFromStructs(e *structs.TaskEvent) *api.TaskEvent {
	return &api.TaskEvent{
		Type:           e.Type,
		Time:           e.Time,
		DisplayMessage: e.DisplayMessage,
		Details:        maps.Clone(e.Details),
		Message:        e.Message,
		ExitCode:       e.ExitCode,
		Signal:         e.Signal,
		KillTimeout:    e.KillTimeout,
		RestartReason:  e.RestartReason,
		FailsTask:      e.FailsTask,
	}
}

func allocDeploymentStatusFromStructs(s *structs.AllocDeploymentStatus) *api.AllocDeploymentStatus {
	if s == nil {
		return nil
	}
	return &api.AllocDeploymentStatus{
		Healthy:     clonePtr(s.Healthy),
		Timestamp:   s.Timestamp,
		Canary:      s.Canary,
		ModifyIndex: s.ModifyIndex,
	}
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
