package state

import (
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// setupJob stores a job and returns the stored object.
func setupJob(t *testing.T, s *StateStore, index uint64, id string) *structs.Job {
	t.Helper()
	must(t, s.UpsertJob(index, 0, mockJob(id)))
	j, _ := s.JobByID(nil, "default", id)
	return j
}

func TestUpsertAllocs_New(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	a := mockAlloc("a1", job, "n1")
	a.Job = nil // filled from the current job
	ws := memdb.NewWatchSet()
	s.AllocsByNode(ws, "n1")
	must(t, s.UpsertAllocs(10, []*structs.Allocation{a}))
	if !watchFired(ws) {
		t.Fatal("node watch did not fire")
	}
	got, _ := s.AllocByID(nil, "a1")
	if got == a || got.CreateIndex != 10 || got.ModifyIndex != 10 || got.AllocModifyIndex != 10 {
		t.Fatalf("stored %+v", got)
	}
	if got.Job != job {
		t.Fatal("nil Job not filled from the stored job")
	}
	wantIndex(t, s, TableAllocs, 10)
	wantIndex(t, s, TableJobs, 10) // status pending -> running
}

func TestUpsertAllocs_ServerUpdateKeepsClientFields(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	a := mockAlloc("a1", job, "n1")
	a.DeploymentID = "d1"
	a.DeploymentStatus = &structs.AllocDeploymentStatus{Canary: true}
	must(t, s.UpsertAllocs(10, []*structs.Allocation{a}))
	must(t, s.UpdateAllocsFromClient(11, []*structs.Allocation{{
		ID: "a1", ClientStatus: structs.AllocClientStatusRunning, ClientDescription: "tasks running",
		TaskStates:       map[string]*structs.TaskState{"web": {State: structs.TaskStateRunning, StartedAt: t0}},
		DeploymentStatus: &structs.AllocDeploymentStatus{Healthy: ptr(true), Timestamp: t0},
	}}))

	// The server's copy was taken before the client's report.
	srv := mockAlloc("a1", job, "n1")
	srv.Job = nil
	srv.DeploymentID = "d1"
	srv.DeploymentStatus = &structs.AllocDeploymentStatus{Canary: false} // promoted
	srv.DesiredDescription = "in-place update"
	srv.CreateTime = 1
	must(t, s.UpsertAllocs(12, []*structs.Allocation{srv}))

	got, _ := s.AllocByID(nil, "a1")
	switch {
	case got.ClientStatus != structs.AllocClientStatusRunning || got.ClientDescription != "tasks running":
		t.Fatalf("client status clobbered: %s %q", got.ClientStatus, got.ClientDescription)
	case got.TaskStates["web"] == nil || got.TaskStates["web"].State != structs.TaskStateRunning:
		t.Fatal("task states clobbered")
	case got.DeploymentStatus == nil || got.DeploymentStatus.Healthy == nil || !*got.DeploymentStatus.Healthy:
		t.Fatal("health clobbered")
	case got.DeploymentStatus.Canary:
		t.Fatal("server's Canary not applied")
	case got.DesiredDescription != "in-place update":
		t.Fatal("server field not applied")
	case got.CreateIndex != 10 || got.AllocModifyIndex != 12 || got.CreateTime != a.CreateTime:
		t.Fatalf("indexes create=%d allocModify=%d createTime=%d", got.CreateIndex, got.AllocModifyIndex, got.CreateTime)
	case got.Job != job:
		t.Fatal("nil Job not filled from the existing alloc")
	}
}

func TestUpsertAllocs_ServerMayMarkLost(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	must(t, s.UpsertAllocs(10, []*structs.Allocation{mockAlloc("a1", job, "n1")}))
	u := mockAlloc("a1", job, "n1")
	u.ClientStatus = structs.AllocClientStatusUnknown
	must(t, s.UpsertAllocs(11, []*structs.Allocation{u}))
	if got, _ := s.AllocByID(nil, "a1"); got.ClientStatus != structs.AllocClientStatusUnknown {
		t.Fatalf("client status %s", got.ClientStatus)
	}
}

func TestUpdateAllocsFromClient_KeepsServerFields(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	a := mockAlloc("a1", job, "n1")
	must(t, s.UpsertAllocs(10, []*structs.Allocation{a}))
	stored, _ := s.AllocByID(nil, "a1")

	// The client's copy is stale on every server field.
	u := mockAlloc("a1", job, "n1")
	u.DesiredStatus = structs.AllocDesiredStatusStop
	u.NodeID = "elsewhere"
	u.Job = nil
	u.AllocatedResources = nil
	u.ClientStatus = structs.AllocClientStatusComplete
	u.ModifyTime = 999
	must(t, s.UpdateAllocsFromClient(11, []*structs.Allocation{u, {ID: "unknown", ClientStatus: "running"}}))

	got, _ := s.AllocByID(nil, "a1")
	switch {
	case got.ClientStatus != structs.AllocClientStatusComplete || got.ModifyTime != 999:
		t.Fatal("client fields not applied")
	case got.DesiredStatus != structs.AllocDesiredStatusRun || got.NodeID != "n1" || got.Job != job || got.AllocatedResources == nil:
		t.Fatalf("server fields clobbered: %+v", got)
	case got.ModifyIndex != 11 || got.AllocModifyIndex != 10:
		t.Fatalf("modify=%d allocModify=%d", got.ModifyIndex, got.AllocModifyIndex)
	case stored.ClientStatus != structs.AllocClientStatusPending:
		t.Fatal("stored object modified in place")
	}
	if x, _ := s.AllocByID(nil, "unknown"); x != nil {
		t.Fatal("unknown alloc created by a client update")
	}
}

func TestUpdateAllocsDesiredTransitions(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	a := mockAlloc("a1", job, "n1")
	a.DesiredTransition.Reschedule = ptr(true)
	must(t, s.UpsertAllocs(10, []*structs.Allocation{a}))
	eval := mockEval("e1", "web")
	eval.TriggeredBy = structs.EvalTriggerNodeDrain
	must(t, s.UpdateAllocsDesiredTransitions(11,
		map[string]*structs.DesiredTransition{"a1": {Migrate: ptr(true)}, "gone": {Migrate: ptr(true)}},
		[]*structs.Evaluation{eval}))
	got, _ := s.AllocByID(nil, "a1")
	if got.DesiredTransition.Migrate == nil || !*got.DesiredTransition.Migrate || got.DesiredTransition.Reschedule == nil {
		t.Fatalf("transition %+v", got.DesiredTransition)
	}
	if got.ModifyIndex != 11 || got.AllocModifyIndex != 11 {
		t.Fatalf("modify=%d allocModify=%d", got.ModifyIndex, got.AllocModifyIndex)
	}
	if e, _ := s.EvalByID(nil, "e1"); e == nil {
		t.Fatal("eval not written")
	}
	wantIndex(t, s, TableAllocs, 11)
	wantIndex(t, s, TableEvals, 11)
}

func TestAllocsByJob_AnyCreateIndex(t *testing.T) {
	s := newStore(t)
	old := setupJob(t, s, 5, "web")
	must(t, s.UpsertAllocs(10, []*structs.Allocation{mockAlloc("old", old, "n1")}))
	must(t, s.DeleteJob(11, "default", "web"))
	cur := setupJob(t, s, 12, "web")
	must(t, s.UpsertAllocs(13, []*structs.Allocation{mockAlloc("new", cur, "n1")}))
	tests := []struct {
		any  bool
		want []string
	}{
		{true, []string{"new", "old"}},
		{false, []string{"new"}},
	}
	for _, tt := range tests {
		allocs, err := s.AllocsByJob(nil, "default", "web", tt.any)
		must(t, err)
		if got := allocIDs(allocs); !equalStrings(got, tt.want) {
			t.Errorf("anyCreateIndex=%v: got %v, want %v", tt.any, got, tt.want)
		}
	}
	must(t, s.DeleteJob(14, "default", "web"))
	if allocs, _ := s.AllocsByJob(nil, "default", "web", false); len(allocs) != 2 {
		t.Fatal("allocs of a purged job should all be returned")
	}
}

func allocIDs(allocs []*structs.Allocation) (out []string) {
	for _, a := range allocs {
		out = append(out, a.ID)
	}
	return out
}

func TestAllocReads(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	prod := mockJob("api")
	prod.Namespace = "prod"
	must(t, s.UpsertJob(6, 0, prod))
	mk := func(id, node, eval, dep, desired string, j *structs.Job) *structs.Allocation {
		a := mockAlloc(id, j, node)
		a.EvalID, a.DeploymentID, a.DesiredStatus = eval, dep, desired
		return a
	}
	// An eval's allocs are found through its job, so the eval is stored.
	must(t, s.UpsertEvals(9, []*structs.Evaluation{mockEval("e1", job.ID)}))
	must(t, s.UpsertAllocs(10, []*structs.Allocation{
		mk("aa1", "n1", "e1", "d1", "run", job),
		mk("aa2", "n1", "e1", "", "stop", job),
		mk("ab1", "n10", "e2", "d1", "run", job),
		mk("b1", "n1", "e3", "", "run", prod),
	}))
	tests := []struct {
		name string
		get  func() ([]*structs.Allocation, error)
		want []string
	}{
		{"prefix", func() ([]*structs.Allocation, error) { return s.AllocsByIDPrefix(nil, "default", "aa") }, []string{"aa1", "aa2"}},
		{"prefix all namespaces", func() ([]*structs.Allocation, error) { return s.AllocsByIDPrefix(nil, "*", "") }, []string{"aa1", "aa2", "ab1", "b1"}},
		{"namespace", func() ([]*structs.Allocation, error) { return s.Allocs(nil, "prod") }, []string{"b1"}},
		{"all", func() ([]*structs.Allocation, error) { return s.Allocs(nil, "*") }, []string{"aa1", "aa2", "ab1", "b1"}},
		{"node (not a prefix match)", func() ([]*structs.Allocation, error) { return s.AllocsByNode(nil, "n1") }, []string{"aa1", "aa2", "b1"}},
		{"node non-terminal", func() ([]*structs.Allocation, error) { return s.AllocsByNodeTerminal(nil, "n1", false) }, []string{"aa1", "b1"}},
		{"node terminal", func() ([]*structs.Allocation, error) { return s.AllocsByNodeTerminal(nil, "n1", true) }, []string{"aa2"}},
		{"eval", func() ([]*structs.Allocation, error) { return s.AllocsByEval(nil, "e1") }, []string{"aa1", "aa2"}},
		{"deployment", func() ([]*structs.Allocation, error) { return s.AllocsByDeployment(nil, "d1") }, []string{"aa1", "ab1"}},
	}
	for _, tt := range tests {
		allocs, err := tt.get()
		must(t, err)
		if got := allocIDs(allocs); !equalStrings(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestAllocsByNodeTerminal_WatchFiresOnTransition(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	must(t, s.UpsertAllocs(10, []*structs.Allocation{mockAlloc("a1", job, "n1")}))
	ws := memdb.NewWatchSet()
	if allocs, _ := s.AllocsByNodeTerminal(ws, "n1", true); len(allocs) != 0 {
		t.Fatal("unexpected terminal alloc")
	}
	must(t, s.UpdateAllocsFromClient(11, []*structs.Allocation{{ID: "a1", ClientStatus: structs.AllocClientStatusFailed}}))
	if !watchFired(ws) {
		t.Fatal("terminal watch did not fire")
	}
	if allocs, _ := s.AllocsByNodeTerminal(nil, "n1", true); len(allocs) != 1 {
		t.Fatal("alloc not terminal")
	}
}

// TestAllocsByNode_WatchFiresOnEveryChange: a node's live allocs are read
// from its usage row, its terminal ones from node_terminal; a watch on
// either half fires on every change to an alloc of that half, and only
// then (a change on another node leaves it alone).
func TestAllocsByNode_WatchFiresOnEveryChange(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	must(t, s.UpsertAllocs(10, []*structs.Allocation{mockAlloc("a1", job, "n1"), mockAlloc("a2", job, "n1"),
		mockAlloc("b1", job, "n2")}))
	must(t, s.UpdateAllocsFromClient(11, []*structs.Allocation{{ID: "a2", ClientStatus: structs.AllocClientStatusComplete}}))
	index := uint64(20)
	for _, tt := range []struct {
		name                 string
		write                func(index uint64) error
		node, live, terminal bool // which watches must fire
	}{
		{"a client report that keeps it live", func(i uint64) error {
			return s.UpdateAllocsFromClient(i, []*structs.Allocation{{ID: "a1", ClientStatus: structs.AllocClientStatusRunning}})
		}, true, true, false},
		{"a new placement", func(i uint64) error {
			return s.UpsertAllocs(i, []*structs.Allocation{mockAlloc("a3", job, "n1")})
		}, true, true, false},
		{"a live alloc becomes terminal", func(i uint64) error {
			return s.UpdateAllocsFromClient(i, []*structs.Allocation{{ID: "a3", ClientStatus: structs.AllocClientStatusFailed}})
		}, true, true, true},
		{"a terminal alloc is collected", func(i uint64) error { return s.DeleteEvals(i, nil, []string{"a2"}) }, true, false, true},
		{"an alloc on another node", func(i uint64) error {
			return s.UpdateAllocsFromClient(i, []*structs.Allocation{{ID: "b1", ClientStatus: structs.AllocClientStatusRunning}})
		}, false, false, false},
	} {
		node, live, terminal := memdb.NewWatchSet(), memdb.NewWatchSet(), memdb.NewWatchSet()
		_, err := s.AllocsByNode(node, "n1")
		must(t, err)
		_, err = s.AllocsByNodeTerminal(live, "n1", false)
		must(t, err)
		_, err = s.AllocsByNodeTerminal(terminal, "n1", true)
		must(t, err)
		index++
		must(t, tt.write(index))
		if got := [3]bool{watchFired(node), watchFired(live), watchFired(terminal)}; got != [3]bool{tt.node, tt.live, tt.terminal} {
			t.Errorf("%s: watches fired (node, live, terminal) %v, want %v", tt.name, got, [3]bool{tt.node, tt.live, tt.terminal})
		}
	}
}

func TestDeploymentCounters(t *testing.T) {
	s := newStore(t)
	job := setupJob(t, s, 5, "web")
	d := mockDeployment("d1", job)
	must(t, s.UpsertDeployment(6, d))
	allocs := []*structs.Allocation{mockAlloc("a1", job, "n1"), mockAlloc("a2", job, "n1")}
	for _, a := range allocs {
		a.DeploymentID = "d1"
	}
	must(t, s.UpsertAllocs(10, allocs))
	must(t, s.UpsertAllocs(11, allocs[:1])) // an update is not a new placement
	healthAt := t0.Add(time.Hour)
	report := func(index uint64, id string, healthy bool) {
		must(t, s.UpdateAllocsFromClient(index, []*structs.Allocation{{
			ID: id, DeploymentStatus: &structs.AllocDeploymentStatus{Healthy: ptr(healthy), Timestamp: healthAt},
		}}))
	}
	report(12, "a1", true)
	report(13, "a2", false)
	report(14, "a2", true)
	report(15, "a2", true) // no change

	got, _ := s.DeploymentByID(nil, "d1")
	st := got.TaskGroups["web"]
	if st.PlacedAllocs != 2 || st.HealthyAllocs != 2 || st.UnhealthyAllocs != 0 {
		t.Fatalf("counters placed=%d healthy=%d unhealthy=%d", st.PlacedAllocs, st.HealthyAllocs, st.UnhealthyAllocs)
	}
	if want := healthAt.Add(10 * time.Minute); !st.RequireProgressBy.Equal(want) {
		t.Fatalf("RequireProgressBy = %v, want %v", st.RequireProgressBy, want)
	}
	if got.ModifyIndex != 14 {
		t.Fatalf("deployment modify index %d", got.ModifyIndex)
	}

	// A writer with a stale copy does not roll the counters back.
	stale := mockDeployment("d1", job)
	stale.TaskGroups["web"].Promoted = true
	must(t, s.UpsertDeployment(16, stale))
	got, _ = s.DeploymentByID(nil, "d1")
	if st := got.TaskGroups["web"]; st.HealthyAllocs != 2 || st.PlacedAllocs != 2 || !st.Promoted || got.CreateIndex != 6 {
		t.Fatalf("after stale upsert: %+v", st)
	}
}
