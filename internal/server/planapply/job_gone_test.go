package planapply

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// A plan computed before its job was purged or stopped must commit
// nothing for the job: not the job itself (a purged job coming back),
// not its placements. Two races: the write lands before the applier
// evaluates the plan, or between the evaluation and the raft commit.
func TestApplier_PlanForGoneJobCommitsNothing(t *testing.T) {
	purge := func(h *harness, job *structs.Job, index uint64) {
		h.must(h.store.DeleteJob(index, job.Namespace, job.ID))
	}
	stop := func(h *harness, job *structs.Job, index uint64) {
		stopped := job.Copy()
		stopped.Stop = true
		h.must(h.store.UpsertJob(index, 0, stopped))
	}
	for _, tc := range []struct {
		name         string
		change       func(h *harness, job *structs.Job, index uint64)
		beforeCommit bool
	}{
		{"purged before evaluation", purge, false},
		{"purged between evaluation and commit", purge, true},
		{"stopped before evaluation", stop, false},
		{"stopped between evaluation and commit", stop, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			setupNodes(h, mockJob("batch", 50), "n1")
			job, _ := h.store.JobByID(nil, "default", "batch")
			h.upsertAllocs(mockAlloc("old", job, "n1", 100, 100, 100))

			plan := h.plan("eval-1", job)
			addTo(&plan.NodeAllocation, mockAlloc("p1", job, "n1", 100, 100, 100))
			stopOld := mockAlloc("old", job, "n1", 100, 100, 100)
			stopOld.DesiredStatus = structs.AllocDesiredStatusStop
			addTo(&plan.NodeUpdate, stopOld)
			plan.Deployment = &structs.Deployment{ID: "d1", Namespace: "default", JobID: "batch", Status: structs.DeploymentStatusRunning}

			if tc.beforeCommit {
				h.raft.beforeCommit = func(index uint64) { tc.change(h, job, index) }
			} else {
				tc.change(h, job, h.raft.next())
			}
			res, err := h.submit(plan)
			if err != nil {
				t.Fatal(err)
			}
			if h.alloc("p1") != nil {
				t.Fatal("a placement of the gone job was committed")
			}
			if d, _ := h.store.DeploymentByID(nil, "d1"); d != nil {
				t.Fatal("a deployment of the gone job was committed")
			}
			stored, _ := h.store.JobByID(nil, "default", "batch")
			if stored != nil && !stored.Stop {
				t.Fatalf("the gone job was written back: %+v", stored)
			}
			if old := h.alloc("old"); old.DesiredStatus != structs.AllocDesiredStatusStop {
				t.Fatalf("the plan's stop was dropped: %s", old.DesiredStatus)
			}
			if !tc.beforeCommit && (len(res.NodeAllocation["n1"]) != 0 || res.RefreshIndex == 0) {
				t.Fatalf("result places %v, refresh %d: the scheduler must retry on fresh state", res.NodeAllocation, res.RefreshIndex)
			}
		})
	}
}

// A plan of a gone job that only stops allocs is committed as is: no
// rejection, no refresh (nothing to retry), and a node listed without
// placements is not rejected either.
func TestEvaluatePlan_GoneJobStopsOnly(t *testing.T) {
	h := newHarness(t)
	setupNodes(h, mockJob("batch", 50), "n1", "n2")
	job, _ := h.store.JobByID(nil, "default", "batch")
	h.upsertAllocs(mockAlloc("old", job, "n1", 100, 100, 100))
	h.must(h.store.DeleteJob(h.raft.next(), job.Namespace, job.ID))

	plan := h.plan("eval-1", job)
	stop := mockAlloc("old", job, "n1", 100, 100, 100)
	stop.DesiredStatus = structs.AllocDesiredStatusStop
	addTo(&plan.NodeUpdate, stop)
	plan.NodeAllocation = map[string][]*structs.Allocation{"n2": {}}
	out, err := Evaluate(h.store.Snapshot(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Rejections) != 0 || out.Result.RefreshIndex != 0 || len(out.Result.NodeUpdate["n1"]) != 1 {
		t.Fatalf("rejections %v refresh %d stops %v", out.Rejections, out.Result.RefreshIndex, out.Result.NodeUpdate)
	}
}
