package agent

import (
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestContract_NodeCommands: `node status` (list, -verbose, one node with
// -stats and its allocs), `node eligibility`, `node drain` (and drain off),
// `node meta apply/read`, `node eval`, on an agent that runs a client.
func TestContract_NodeCommands(t *testing.T) {
	c, _ := deployedJob(t)
	stubs, _, err := c.Nodes().List(&api.QueryOptions{Params: map[string]string{"resources": "true"}})
	if err != nil || len(stubs) != 1 {
		t.Fatalf("node status %d: %v", len(stubs), err)
	}
	requireFilled(t, "node status", stubs[0], "ID", "NodePool", "Datacenter", "Name", "SchedulingEligibility", "Status", "Address",
		"Version", "Drivers[raw_exec].Detected", "Drivers[raw_exec].Healthy", "NodeResources.Cpu.CpuShares", "NodeResources.Memory.MemoryMB",
		"CreateIndex", "ModifyIndex")
	id := stubs[0].ID
	node, _, err := c.Nodes().Info(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "node status <id>", node, "ID", "Name", "NodePool", "Datacenter", "SchedulingEligibility", "Status", "HTTPAddr",
		"Attributes[kernel.name]", "Attributes[nomad.version]", "Drivers[raw_exec].Detected", "Drivers[raw_exec].Healthy",
		"Events[0].Message", "Events[0].Subsystem", "Events[0].Timestamp",
		"NodeResources.Cpu.CpuShares", "NodeResources.Memory.MemoryMB", "NodeResources.Disk.DiskMB", "StatusUpdatedAt")
	stats, err := c.Nodes().Stats(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "node status -stats", stats, "Uptime", "Memory.Total", "Memory.Available", "Memory.Used", "CPU[0].CPU",
		"DiskStats[0].Device", "DiskStats[0].Mountpoint", "DiskStats[0].Size", "AllocDirStats.Size")
	allocs, _, err := c.Nodes().Allocations(id, nil)
	if err != nil || len(allocs) != 1 {
		t.Fatalf("node allocations %d: %v", len(allocs), err)
	}
	requireFilled(t, "node status <id> (allocs)", allocs[0], "ID", "EvalID", "JobID", "TaskGroup", "DesiredStatus", "ClientStatus",
		"Resources.CPU", "Resources.MemoryMB", "Job.ID", "CreateTime", "ModifyTime")

	meta, err := c.Nodes().Meta().Apply(&api.NodeMetaApplyRequest{NodeID: id, Meta: map[string]*string{"rack": pointer("r1")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "node meta apply", meta, "Meta[rack]", "Dynamic[rack]")
	read, err := c.Nodes().Meta().Read(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "node meta read", read, "Meta[rack]", "Dynamic[rack]")

	elig, err := c.Nodes().ToggleEligibility(id, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "node eligibility -disable", elig, "NodeModifyIndex", "LastIndex")
	if _, err := c.Nodes().ToggleEligibility(id, true, nil); err != nil {
		t.Fatal(err)
	}
	evalID, _, err := c.Nodes().ForceEvaluate(id, nil)
	if err != nil || evalID == "" {
		t.Fatalf("node eval: %q %v", evalID, err)
	}
	drain, err := c.Nodes().UpdateDrainOpts(id, &api.DrainOptions{DrainSpec: &api.DrainSpec{Deadline: time.Hour}, Meta: map[string]string{"why": "test"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "node drain -enable", drain, "NodeModifyIndex", "LastIndex")
	node, _, _ = c.Nodes().Info(id, nil)
	requireFilled(t, "node status <id> (draining)", node, "DrainStrategy.Deadline", "DrainStrategy.ForceDeadline", "DrainStrategy.StartedAt",
		"LastDrain.StartedAt", "LastDrain.Status")
	if _, err := c.Nodes().UpdateDrainOpts(id, &api.DrainOptions{MarkEligible: true}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestContract_NodePoolAndNamespaceCommands: `node pool list/info/apply/
// jobs/nodes/delete` and `namespace list/status/apply/delete`.
func TestContract_NodePoolAndNamespaceCommands(t *testing.T) {
	a, c := testAgent(t, allSchedulers)
	n := simNode(1, 4000, 8192)
	n.NodePool = "gpu"
	pool := &api.NodePool{Name: "gpu", Description: "GPU nodes", Meta: map[string]string{"team": "ml"}}
	if _, err := c.NodePools().Register(pool, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Server().RegisterNode(n); err != nil {
		t.Fatal(err)
	}
	ns := &api.Namespace{Name: "prod", Description: "production", Meta: map[string]string{"env": "prod"}}
	if _, err := c.Namespaces().Register(ns, nil); err != nil {
		t.Fatal(err)
	}
	job := testAPIJob("train")
	job.NodePool, job.Namespace = pointer("gpu"), pointer("prod")
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}

	pools, _, err := c.NodePools().List(nil)
	if err != nil || len(pools) != 3 {
		t.Fatalf("node pool list %d: %v", len(pools), err)
	}
	for _, p := range pools {
		requireFilled(t, "node pool list", p, "Name", "Description")
	}
	info, _, err := c.NodePools().Info("gpu", nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "node pool info", info, "Name", "Description", "Meta[team]", "CreateIndex", "ModifyIndex")
	jobs, _, err := c.NodePools().ListJobs("gpu", &api.QueryOptions{Namespace: "*"})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("node pool jobs %d: %v", len(jobs), err)
	}
	requireFilled(t, "node pool jobs", jobs[0], "ID", "Namespace", "Type", "Priority", "Status", "JobSummary")
	nodes, _, err := c.NodePools().ListNodes("gpu", nil)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("node pool nodes %d: %v", len(nodes), err)
	}
	requireFilled(t, "node pool nodes", nodes[0], "ID", "NodePool", "Datacenter", "Name", "SchedulingEligibility", "Status")

	nss, _, err := c.Namespaces().List(nil)
	if err != nil || len(nss) != 2 {
		t.Fatalf("namespace list %d: %v", len(nss), err)
	}
	for _, n := range nss {
		requireFilled(t, "namespace list", n, "Name", "Description")
	}
	got, _, err := c.Namespaces().Info("prod", nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "namespace status", got, "Name", "Description", "Meta[env]", "CreateIndex", "ModifyIndex")

	if _, _, err := c.Jobs().Deregister("train", true, &api.WriteOptions{Namespace: "prod"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Namespaces().Delete("prod", nil); err != nil {
		t.Fatalf("namespace delete: %v", err)
	}
	if _, err := c.NodePools().Register(&api.NodePool{Name: "spare"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.NodePools().Delete("spare", nil); err != nil {
		t.Fatalf("node pool delete: %v", err)
	}
}
