package state

import (
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// t0 is a fixed instant; times in fixtures are UTC, as decoded ones are.
var t0 = time.Unix(1_700_000_000, 123).UTC()

func newStore(t testing.TB) *StateStore {
	t.Helper()
	s, err := NewStateStore()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// mockJob is mock.Job with more of every field filled, so round trips
// through the store compare something.
func mockJob(id string) *structs.Job {
	j := mock.Job(id)
	j.Constraints = []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}}
	j.Meta = map[string]string{"owner": "team-a"}
	j.TaskGroups[0].Count = 2
	task := j.TaskGroups[0].Tasks[0]
	task.Driver = "docker"
	task.Config = map[string]any{"image": "nginx", "args": []any{"-g", "daemon off;"}, "labels": map[string]any{"a": "b"}}
	task.Env = map[string]string{"PORT": "8080"}
	return j
}

func mockNode(id string) *structs.Node {
	n := mock.Node(id)
	n.Attributes = map[string]string{"kernel.name": "linux"}
	n.Drivers = map[string]*structs.DriverInfo{"docker": {Detected: true, Healthy: true, UpdateTime: t0, Attributes: map[string]string{"v": "1"}}}
	n.Events = []*structs.NodeEvent{{Message: "registered", Subsystem: "cluster", Timestamp: t0}}
	return n
}

// mockEval is mock.Eval of a job-register eval for job jobID, with more
// of every field filled, as mockJob.
func mockEval(id, jobID string) *structs.Evaluation {
	e := mock.Eval(id, mock.Job(jobID), structs.EvalTriggerJobRegister)
	e.WaitUntil = t0
	e.ClassEligibility = map[string]bool{"v1:123": true}
	e.QueuedAllocations = map[string]int{"web": 1}
	e.FailedTGAllocs = map[string]*structs.AllocMetric{"web": {NodesEvaluated: 3, DimensionExhausted: map[string]int{"cpu": 2}}}
	e.CreateTime, e.ModifyTime = t0.UnixNano(), t0.UnixNano()
	return e
}

func mockAlloc(id string, job *structs.Job, nodeID string) *structs.Allocation {
	a := mock.Alloc(id, job, nodeID)
	a.AllocatedResources.Shared = structs.AllocatedSharedResources{DiskMB: 300, Ports: []structs.AllocatedPortMapping{{Label: "http", Value: 25000}}}
	a.Metrics = &structs.AllocMetric{NodesEvaluated: 1, ScoreMetaData: []*structs.NodeScoreMeta{{NodeID: nodeID, Scores: map[string]float64{"binpack": 0.5}}}}
	a.CreateTime, a.ModifyTime = t0.UnixNano(), t0.UnixNano()
	return a
}

func mockDeployment(id string, job *structs.Job) *structs.Deployment {
	return &structs.Deployment{
		ID: id, Namespace: job.Namespace, JobID: job.ID, JobVersion: job.Version,
		JobCreateIndex: job.CreateIndex, Status: structs.DeploymentStatusRunning,
		TaskGroups: map[string]*structs.DeploymentState{"web": {
			DesiredTotal: 2, ProgressDeadline: 10 * time.Minute, RequireProgressBy: t0,
		}},
		CreateTime: t0.UnixNano(), ModifyTime: t0.UnixNano(),
	}
}

// watchFired reports whether any channel of ws is closed. memdb closes
// watch channels inside Commit, so this needs no waiting.
func watchFired(ws memdb.WatchSet) bool {
	for ch := range ws {
		select {
		case <-ch:
			return true
		default:
		}
	}
	return false
}

func wantIndex(t *testing.T, r interface{ Index(string) uint64 }, table string, want uint64) {
	t.Helper()
	if got := r.Index(table); got != want {
		t.Fatalf("Index(%s) = %d, want %d", table, got, want)
	}
}
