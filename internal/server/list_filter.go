package server

import (
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// A list's filter sees what Nomad's filter sees: the list stub the client
// receives. For jobs, nodes and allocations the stub has fields the stored
// object spells differently (Periodic is a bool, Drain a bool, JobType is
// the alloc's job's type), so the filter runs over a view with the stub's
// names; evaluations and deployments list whole objects and are filtered
// as stored.

// jobStubView is what a job list filter sees (Nomad's JobListStub).
type jobStubView struct {
	ID, ParentID, Name, Namespace string
	Datacenters                   []string
	Type                          string
	Priority                      int
	Periodic, ParameterizedJob    bool
	Stop                          bool
	Status, StatusDescription     string
	CreateIndex, ModifyIndex      uint64
	JobModifyIndex                uint64
	SubmitTime                    int64
	Meta                          map[string]string
}

func jobStub(j *structs.Job) jobStubView {
	return jobStubView{
		ID: j.ID, ParentID: j.ParentID, Name: j.Name, Namespace: j.Namespace, Datacenters: j.Datacenters,
		Type: j.Type, Priority: j.Priority, Periodic: j.Periodic != nil, ParameterizedJob: j.IsParameterized(),
		Stop: j.Stop, Status: j.Status, StatusDescription: j.StatusDescription,
		CreateIndex: j.CreateIndex, ModifyIndex: j.ModifyIndex, JobModifyIndex: j.JobModifyIndex,
		SubmitTime: j.SubmitTime, Meta: j.Meta,
	}
}

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
