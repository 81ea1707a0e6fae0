package server

import (
	"strings"

	"github.com/hashicorp/go-bexpr"

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

// filterFunc compiles a go-bexpr filter; an empty filter matches everything.
func filterFunc[T any](expr string) (func(T) (bool, error), error) {
	if expr == "" {
		return func(T) (bool, error) { return true, nil }, nil
	}
	ev, err := bexpr.CreateEvaluator(expr)
	if err != nil {
		return nil, BadRequest("filter: invalid expression: %v", err)
	}
	return func(it T) (bool, error) {
		ok, err := ev.Evaluate(it)
		if err != nil {
			return false, BadRequest("filter: %v", err)
		}
		return ok, nil
	}, nil
}

// pageOptions turns a request's list options into the state store's, for
// the paged listings whose cost follows the page (state.EvalsPage, ...).
func pageOptions(q *QueryOptions) state.PageOptions {
	ns := q.Namespace
	if strings.TrimSpace(ns) == state.AllNamespaces {
		ns = state.AllNamespaces
	} else if ns == "" {
		ns = structs.DefaultNamespace
	}
	return state.PageOptions{Namespace: ns, Prefix: q.Prefix, NextToken: q.NextToken, Reverse: q.Reverse, PerPage: int(q.PerPage)}
}

// pageFilter compiles q.Filter together with the endpoint's own
// conditions (nil when there are none) into one match function.
func pageFilter[T any](q *QueryOptions, also func(*T) bool) (state.MatchFunc[T], error) {
	match, err := filterFunc[*T](q.Filter)
	if err != nil {
		return nil, err
	}
	return func(obj *T) (bool, error) {
		if also != nil && !also(obj) {
			return false, nil
		}
		return match(obj)
	}, nil
}

// refuseListOptions refuses the list options (filter, per_page,
// next_token, reverse) on a listing that does not apply them, naming the
// first one set: a sub-listing (a job's, node's, eval's or deployment's
// allocs, a job's evals, versions or deployments), namespaces, node pools.
// Nomad ignores them there; Drover refuses what it does not act on.
func refuseListOptions(q *QueryOptions) error {
	switch {
	case q.Filter != "":
		return BadRequest("filter: this listing does not filter; list it whole")
	case q.PerPage != 0:
		return BadRequest("per_page: this listing is not paged")
	case q.NextToken != "":
		return BadRequest("next_token: this listing is not paged")
	case q.Reverse:
		return BadRequest("reverse: this listing has one order")
	}
	return nil
}
