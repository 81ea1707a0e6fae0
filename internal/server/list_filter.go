package server

import (
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// A list's filter sees what Nomad's filter sees. For nodes and
// allocations that is the list stub the client receives, whose fields the
// stored object spells differently (Drain is a bool, JobType is the
// alloc's job's type), so the filter runs over a view with the stub's
// names; jobs, evaluations and deployments are filtered as stored (a job
// whole, with its blocks).

// nodeStubView is what a node list filter sees (Nomad's NodeListStub).
type nodeStubView struct {
	Address, ID, Datacenter, Name, NodeClass, NodePool, Version string
	Drain                                                       bool
	SchedulingEligibility, Status, StatusDescription            string
	Drivers                                                     map[string]*structs.DriverInfo
	CreateIndex, ModifyIndex                                    uint64
}

func nodeStub(n *structs.Node) nodeStubView {
	return nodeStubView{
		Address: n.Attributes["unique.network.ip-address"], ID: n.ID, Datacenter: n.Datacenter, Name: n.Name,
		NodeClass: n.NodeClass, NodePool: n.NodePool, Version: n.Attributes["nomad.version"],
		Drain: n.DrainStrategy != nil, SchedulingEligibility: n.SchedulingEligibility, Status: n.Status,
		StatusDescription: n.StatusDescription, Drivers: n.Drivers, CreateIndex: n.CreateIndex, ModifyIndex: n.ModifyIndex,
	}
}

// allocStubView is what an allocation list filter sees (Nomad's
// AllocationListStub).
type allocStubView struct {
	ID, EvalID, Name, Namespace, NodeID, NodeName, JobID, JobType string
	JobVersion                                                    uint64
	TaskGroup                                                     string
	DesiredStatus, DesiredDescription                             string
	ClientStatus, ClientDescription                               string
	TaskStates                                                    map[string]*structs.TaskState
	DeploymentStatus                                              *structs.AllocDeploymentStatus
	FollowupEvalID, NextAllocation, PreemptedByAllocation         string
	CreateIndex, ModifyIndex                                      uint64
	CreateTime, ModifyTime                                        int64
}

func allocStub(a *structs.Allocation) allocStubView {
	v := allocStubView{
		ID: a.ID, EvalID: a.EvalID, Name: a.Name, Namespace: a.Namespace, NodeID: a.NodeID, NodeName: a.NodeName,
		JobID: a.JobID, TaskGroup: a.TaskGroup, DesiredStatus: a.DesiredStatus, DesiredDescription: a.DesiredDescription,
		ClientStatus: a.ClientStatus, ClientDescription: a.ClientDescription, TaskStates: a.TaskStates,
		DeploymentStatus: a.DeploymentStatus, FollowupEvalID: a.FollowupEvalID, NextAllocation: a.NextAllocation,
		PreemptedByAllocation: a.PreemptedByAllocation, CreateIndex: a.CreateIndex, ModifyIndex: a.ModifyIndex,
		CreateTime: a.CreateTime, ModifyTime: a.ModifyTime,
	}
	if a.Job != nil {
		v.JobType, v.JobVersion = a.Job.Type, a.Job.Version
	}
	return v
}

// stubFilter compiles q.Filter to run over each listed object's stub view.
func stubFilter[T, V any](q *QueryOptions, view func(*T) V) (state.MatchFunc[T], error) {
	match, err := filterFunc[V](q.Filter)
	if err != nil {
		return nil, err
	}
	if q.Filter == "" {
		return nil, nil
	}
	return func(obj *T) (bool, error) { return match(view(obj)) }, nil
}
