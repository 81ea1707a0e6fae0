package agent

import (
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// TestContract_AllocStatusAndLifecycle: `alloc status` (with -stats and
// -verbose placement metrics), `alloc fs` (ls, stat), `alloc signal`,
// `alloc restart`, `alloc stop`.
func TestContract_AllocStatusAndLifecycle(t *testing.T) {
	c, _ := deployedJob(t)
	stubs, _, err := c.Jobs().Allocations("web", false, nil)
	if err != nil || len(stubs) != 1 {
		t.Fatalf("allocs %d: %v", len(stubs), err)
	}
	alloc, _, err := c.Allocations().Info(stubs[0].ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "alloc status", alloc, "ID", "EvalID", "Name", "NodeID", "NodeName", "JobID", "Job.ID", "Job.TaskGroups",
		"ClientStatus", "ClientDescription", "DesiredStatus", "CreateTime", "ModifyTime", "DeploymentID", "DeploymentStatus.Healthy",
		"Resources.CPU", "Resources.MemoryMB", "Resources.DiskMB", "TaskResources[t].CPU", "TaskResources[t].MemoryMB",
		"AllocatedResources.Tasks[t].Cpu.CpuShares", "AllocatedResources.Tasks[t].Memory.MemoryMB", "AllocatedResources.Shared.DiskMB",
		"TaskStates[t].State", "TaskStates[t].StartedAt", "TaskStates[t].Events[0].Type", "TaskStates[t].Events[0].Time",
		"TaskStates[t].Events[0].DisplayMessage", "Metrics.NodesEvaluated", "Metrics.NodesInPool", "Metrics.ScoreMetaData[0].NodeID",
		"Metrics.ScoreMetaData[0].Scores", "Metrics.ScoreMetaData[0].NormScore", "Metrics.AllocationTime", "CreateIndex", "ModifyIndex", "AllocModifyIndex")
	var stats *api.AllocResourceUsage
	testutil.WaitFor(t, 10*time.Second, "alloc stats with memory", func() (bool, string) {
		if stats, err = c.Allocations().Stats(alloc, nil); err != nil {
			return false, err.Error()
		}
		return stats.ResourceUsage != nil && stats.ResourceUsage.MemoryStats != nil && stats.ResourceUsage.MemoryStats.RSS > 0, "no RSS"
	})
	requireFilled(t, "alloc status -stats", stats, "Timestamp", "ResourceUsage.MemoryStats.RSS", "ResourceUsage.MemoryStats.Measured",
		"ResourceUsage.CpuStats.Measured", "Tasks[t].Timestamp", "Tasks[t].ResourceUsage.MemoryStats.RSS")

	files, _, err := c.AllocFS().List(alloc, "/", nil)
	if err != nil || len(files) == 0 {
		t.Fatalf("alloc fs ls %d: %v", len(files), err)
	}
	requireFilled(t, "alloc fs ls", files[0], "Name", "FileMode", "ModTime")
	stat, _, err := c.AllocFS().Stat(alloc, "/t", nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "alloc fs stat", stat, "Name", "IsDir", "FileMode", "ModTime")

	if err := c.Allocations().Signal(alloc, nil, "t", "SIGCONT"); err != nil {
		t.Fatalf("alloc signal: %v", err)
	}
	if err := c.Allocations().Restart(alloc, "t", nil); err != nil {
		t.Fatalf("alloc restart: %v", err)
	}
	testutil.WaitFor(t, 10*time.Second, "the restart to show in the task state", func() (bool, string) {
		a, _, err := c.Allocations().Info(alloc.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		ts := a.TaskStates["t"]
		return ts.Restarts > 0 && !ts.LastRestart.IsZero() && ts.State == "running", ts.State
	})
	stop, err := c.Allocations().Stop(alloc, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "alloc stop", stop, "EvalID", "LastIndex")
}

// TestContract_EvalListStatusDelete: `eval list`, `eval status` (with
// related evals and placement failures), `eval delete`.
func TestContract_EvalListStatusDelete(t *testing.T) {
	a, c := testAgent(t, allSchedulers)
	if _, err := a.Server().RegisterNode(simNode(1, 1000, 1024)); err != nil {
		t.Fatal(err)
	}
	big := testAPIJob("big")
	big.Datacenters = []string{"dc1"}
	big.TaskGroups[0].Count = pointer(1)
	big.TaskGroups[0].Tasks[0].Resources = &api.Resources{CPU: pointer(5000), MemoryMB: pointer(64)}
	reg, _, err := c.Jobs().Register(big, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ev *api.Evaluation
	testutil.WaitFor(t, 10*time.Second, "the register eval to finish with a blocked eval", func() (bool, string) {
		ev, _, err = c.Evaluations().Info(reg.EvalID, &api.QueryOptions{Params: map[string]string{"related": "true"}})
		if err != nil {
			t.Fatal(err)
		}
		return ev.Status == "complete" && ev.BlockedEval != "", ev.Status
	})
	requireFilled(t, "eval status", ev, "ID", "Priority", "Type", "TriggeredBy", "JobID", "Namespace", "Status", "CreateTime", "ModifyTime",
		"CreateIndex", "ModifyIndex", "BlockedEval", "FailedTGAllocs[web].NodesEvaluated", "FailedTGAllocs[web].DimensionExhausted",
		"QueuedAllocations[web]", "RelatedEvals[0].ID", "RelatedEvals[0].Status", "RelatedEvals[0].TriggeredBy", "RelatedEvals[0].Priority",
		"RelatedEvals[0].StatusDescription", "SnapshotIndex")
	list, _, err := c.Evaluations().List(nil)
	if err != nil || len(list) < 2 {
		t.Fatalf("eval list %d: %v", len(list), err)
	}
	for _, e := range list {
		requireFilled(t, "eval list", e, "ID", "Priority", "TriggeredBy", "JobID", "Status", "Namespace")
	}
	count, _, err := c.Evaluations().Count(nil)
	if err != nil || count.Count < 2 {
		t.Fatalf("eval count %+v: %v", count, err)
	}
	del, _, err := c.Evaluations().DeleteOpts(&api.EvalDeleteRequest{Filter: `Status == "complete"`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	requireFilled(t, "eval delete", del, "Count")
}
