package state

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

func TestDeploymentReads(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	if d, _ := s.LatestDeploymentByJobID(nil, "default", "web"); d != nil {
		t.Fatal("latest of none")
	}
	ws := memdb.NewWatchSet()
	s.DeploymentsByJobID(ws, "default", "web")
	must(t, s.UpsertDeployment(10, mockDeployment("d2", job)))
	if !watchFired(ws) {
		t.Fatal("watch did not fire")
	}
	must(t, s.UpsertDeployment(11, mockDeployment("d1", job)))
	other := mockDeployment("d3", job)
	other.Namespace, other.JobID = "prod", "api"
	must(t, s.UpsertDeployment(12, other))

	latest, _ := s.LatestDeploymentByJobID(nil, "default", "web")
	if latest.ID != "d1" || latest.CreateIndex != 11 {
		t.Fatalf("latest = %s@%d", latest.ID, latest.CreateIndex)
	}
	ids := func(ds []*structs.Deployment, err error) (out []string) {
		must(t, err)
		for _, d := range ds {
			out = append(out, d.ID)
		}
		return out
	}
	if got := ids(s.DeploymentsByJobID(nil, "default", "web")); !equalStrings(got, []string{"d1", "d2"}) {
		t.Fatalf("by job: %v", got)
	}
	if got := ids(s.Deployments(nil, "prod")); !equalStrings(got, []string{"d3"}) {
		t.Fatalf("by namespace: %v", got)
	}
	if got := ids(s.Deployments(nil, "*")); len(got) != 3 {
		t.Fatalf("all: %v", got)
	}
	wantIndex(t, s, TableDeployment, 12)
}

func TestUpdateDeploymentStatus(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	must(t, s.UpsertDeployment(10, mockDeployment("d1", job)))

	revert := mockJob("web")
	revert.TaskGroups[0].Count = 7
	revert.SubmitTime = 4242
	eval := mockEval("e1", "web")
	eval.TriggeredBy = structs.EvalTriggerDeploymentWatcher
	must(t, s.UpdateDeploymentStatus(11, &structs.DeploymentStatusUpdateRequest{
		DeploymentUpdate: &structs.DeploymentStatusUpdate{DeploymentID: "d1", Status: structs.DeploymentStatusFailed, StatusDescription: "unhealthy"},
		Job:              revert, Eval: eval, UpdatedAt: 888,
	}))
	d, _ := s.DeploymentByID(nil, "d1")
	if d.Status != structs.DeploymentStatusFailed || d.StatusDescription != "unhealthy" || d.ModifyTime != 888 || d.ModifyIndex != 11 {
		t.Fatalf("deployment %+v", d)
	}
	j, _ := s.JobByID(nil, "default", "web")
	if j.Version != 1 || j.SubmitTime != 4242 || j.TaskGroups[0].Count != 7 {
		t.Fatalf("job v%d submit=%d", j.Version, j.SubmitTime)
	}
	if e, _ := s.EvalByID(nil, "e1"); e == nil || e.CreateIndex != 11 {
		t.Fatal("eval not written")
	}
	for _, table := range []string{TableDeployment, TableJobs, TableJobVersion, TableEvals} {
		wantIndex(t, s, table, 11)
	}

	err := s.UpdateDeploymentStatus(12, &structs.DeploymentStatusUpdateRequest{
		DeploymentUpdate: &structs.DeploymentStatusUpdate{DeploymentID: "nope"},
		Eval:             mockEval("e2", "web"),
	})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown deployment: %v", err)
	}
	if e, _ := s.EvalByID(nil, "e2"); e != nil {
		t.Fatal("failed update wrote its eval")
	}
}

// A plan computed before an operator's promote or pause carries the
// deployment as its snapshot had it. Writing that copy must not undo the
// promotion (the rollout would wait forever for a promotion the operator
// was told succeeded) nor the pause, nor a final status.
func TestUpsertDeployment_StaleCopyKeepsPromotionAndStatus(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	d := mockDeployment("d1", job)
	d.TaskGroups["web"].DesiredCanaries = 1
	d.TaskGroups["web"].PlacedAllocs, d.TaskGroups["web"].HealthyAllocs = 1, 1 // a new deployment's counters are taken as given
	d.StatusDescription = "Deployment is running but requires manual promotion"
	must(t, s.UpsertDeployment(10, d))
	stale := d.Copy() // what a plan computed now would carry

	must(t, s.PromoteDeployment(11, &structs.DeploymentPromoteRequest{DeploymentID: "d1", All: true}))
	promoted, _ := s.DeploymentByID(nil, "d1")
	must(t, s.UpsertDeployment(12, stale))
	got, _ := s.DeploymentByID(nil, "d1")
	if !got.TaskGroups["web"].Promoted {
		t.Fatal("a stale copy unpromoted the group")
	}
	if got.StatusDescription != promoted.StatusDescription || got.Status != structs.DeploymentStatusRunning {
		t.Fatalf("status %q (%q), want the promotion's %q", got.Status, got.StatusDescription, promoted.StatusDescription)
	}

	for _, final := range []string{structs.DeploymentStatusPaused, structs.DeploymentStatusFailed, structs.DeploymentStatusSuccessful} {
		must(t, s.UpdateDeploymentStatus(13, &structs.DeploymentStatusUpdateRequest{
			DeploymentUpdate: &structs.DeploymentStatusUpdate{DeploymentID: "d1", Status: final, StatusDescription: "by " + final},
		}))
		must(t, s.UpsertDeployment(14, stale))
		if got, _ := s.DeploymentByID(nil, "d1"); got.Status != final || got.StatusDescription != "by "+final {
			t.Fatalf("after %s, a stale running copy left status %q (%q)", final, got.Status, got.StatusDescription)
		}
	}
}

// RunningDeployments lists only running deployments; its watch fires when
// one of them changes or finishes, not when a finished one is written.
func TestRunningDeployments_FinishedOnesStayOutOfTheWatch(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	done := mockDeployment("done", job)
	done.Status = structs.DeploymentStatusSuccessful
	must(t, s.UpsertDeployment(10, done))
	must(t, s.UpsertDeployment(11, mockDeployment("live", job)))

	ws := memdb.NewWatchSet()
	got, err := s.RunningDeployments(ws)
	must(t, err)
	if len(got) != 1 || got[0].ID != "live" {
		t.Fatalf("RunningDeployments = %d deployments, want only live", len(got))
	}
	again := done.Copy()
	again.StatusDescription = "rewritten"
	must(t, s.UpsertDeployment(12, again))
	if watchFired(ws) {
		t.Fatal("a finished deployment's write woke the running-deployments watch")
	}
	must(t, s.UpdateDeploymentStatus(13, &structs.DeploymentStatusUpdateRequest{DeploymentUpdate: &structs.DeploymentStatusUpdate{
		DeploymentID: "live", Status: structs.DeploymentStatusFailed, StatusDescription: "failed by user"}}))
	if !watchFired(ws) {
		t.Fatal("a running deployment that finished did not wake the watch")
	}
	if got, _ := s.RunningDeployments(nil); len(got) != 0 {
		t.Fatalf("RunningDeployments = %d after both finished, want 0", len(got))
	}
}

// Promotion clears the canary mark of the promoted group's allocs (so
// their clients stop advertising canary_tags) and moves their
// AllocModifyIndex, so the clients fetch them again.
func TestPromoteDeployment_ClearsTheCanaryMark(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	d := mockDeployment("d1", job)
	d.TaskGroups["web"].DesiredCanaries = 1
	d.TaskGroups["web"].PlacedAllocs, d.TaskGroups["web"].HealthyAllocs = 1, 1
	must(t, s.UpsertDeployment(10, d))
	canary := mockAlloc("c1", job, "n1")
	canary.DeploymentID, canary.DeploymentStatus = "d1", &structs.AllocDeploymentStatus{Canary: true, Healthy: new(true)}
	old := mockAlloc("o1", job, "n1")
	must(t, s.UpsertAllocs(11, []*structs.Allocation{canary, old}))

	must(t, s.PromoteDeployment(12, &structs.DeploymentPromoteRequest{DeploymentID: "d1", All: true}))
	got, _ := s.AllocByID(nil, "c1")
	if got.DeploymentStatus.Canary || got.AllocModifyIndex != 12 || got.DeploymentStatus.Healthy == nil || !*got.DeploymentStatus.Healthy {
		t.Fatalf("promoted canary: %+v, alloc modify index %d", got.DeploymentStatus, got.AllocModifyIndex)
	}
	if !canary.DeploymentStatus.Canary {
		t.Fatal("promotion changed the stored object in place")
	}
	if o, _ := s.AllocByID(nil, "o1"); o.AllocModifyIndex == 12 {
		t.Fatal("an alloc outside the deployment was touched")
	}
}

// Manual health: the operator's verdict is recorded as a client's report
// would be (timestamp from the entry, the canary mark kept, the
// deployment's counters moved), with the eval, in one transaction; an
// alloc outside the deployment, an unknown alloc or deployment, or a
// finished deployment fails the whole entry and writes nothing.
func TestSetDeploymentAllocHealth(t *testing.T) {
	for _, tc := range []struct {
		name               string
		deployment         string
		status             string
		healthy, unhealthy []string
		wantErr            string
		wantHealthy        int
		wantUnhealthy      int
	}{
		{name: "both healthy", deployment: "d1", healthy: []string{"a1", "a2"}, wantHealthy: 2},
		{name: "one each", deployment: "d1", healthy: []string{"a1"}, unhealthy: []string{"a2"}, wantHealthy: 1, wantUnhealthy: 1},
		{name: "alloc of another deployment", deployment: "d1", healthy: []string{"a1", "other"}, wantErr: "not part of deployment d1"},
		{name: "unknown alloc", deployment: "d1", unhealthy: []string{"nope"}, wantErr: "nope is not part"},
		{name: "unknown deployment", deployment: "zz", healthy: []string{"a1"}, wantErr: "not found"},
		{name: "finished deployment", deployment: "d1", status: structs.DeploymentStatusSuccessful, healthy: []string{"a1"}, wantErr: "not active"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			job := setupJob(t, s, 5, "web")
			d := mockDeployment("d1", job)
			if tc.status != "" {
				d.Status = tc.status
			}
			must(t, s.UpsertDeployment(10, d))
			var allocs []*structs.Allocation
			for _, id := range []string{"a1", "a2", "other"} {
				a := mockAlloc(id, job, "n1")
				a.DeploymentID = "d1"
				if id == "other" {
					a.DeploymentID = "d0"
				}
				allocs = append(allocs, a)
			}
			allocs[0].DeploymentStatus = &structs.AllocDeploymentStatus{Canary: true}
			must(t, s.UpsertAllocs(11, allocs))

			err := s.SetDeploymentAllocHealth(12, &structs.DeploymentAllocHealthRequest{DeploymentID: tc.deployment,
				HealthyAllocationIDs: tc.healthy, UnhealthyAllocationIDs: tc.unhealthy, Eval: mockEval("e1", "web"), UpdatedAt: 5e9})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if e, _ := s.EvalByID(nil, "e1"); e != nil {
					t.Fatal("a refused entry wrote its eval")
				}
				if a, _ := s.AllocByID(nil, "a1"); a.ModifyIndex != 11 {
					t.Fatal("a refused entry changed an alloc")
				}
				return
			}
			must(t, err)
			for _, id := range append(append([]string{}, tc.healthy...), tc.unhealthy...) {
				a, _ := s.AllocByID(nil, id)
				ds := a.DeploymentStatus
				if ds == nil || ds.Healthy == nil || *ds.Healthy != slices.Contains(tc.healthy, id) ||
					!ds.Timestamp.Equal(time.Unix(5, 0)) || ds.ModifyIndex != 12 || a.ModifyIndex != 12 {
					t.Fatalf("alloc %s: %+v (modify index %d)", id, ds, a.ModifyIndex)
				}
			}
			if a, _ := s.AllocByID(nil, "a1"); !a.DeploymentStatus.Canary {
				t.Fatal("the canary mark was lost")
			}
			got, _ := s.DeploymentByID(nil, "d1")
			if g := got.TaskGroups["web"]; g.HealthyAllocs != tc.wantHealthy || g.UnhealthyAllocs != tc.wantUnhealthy || got.ModifyIndex != 12 {
				t.Fatalf("counters healthy %d unhealthy %d, modify index %d", g.HealthyAllocs, g.UnhealthyAllocs, got.ModifyIndex)
			}
			if e, _ := s.EvalByID(nil, "e1"); e == nil || e.CreateIndex != 12 {
				t.Fatal("eval not written")
			}
		})
	}
}
