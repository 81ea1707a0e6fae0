package fsm

import (
	"bytes"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

func newTestFSM(t *testing.T) *FSM {
	t.Helper()
	f, err := New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// encodeEntry is how applyEntry encodes; a test swaps in the form older
// servers wrote.
var encodeEntry = structs.Encode

// applyEntry encodes msg and applies it at index, failing on any error.
func applyEntry(t *testing.T, f *FSM, index uint64, mt structs.MessageType, msg any) {
	t.Helper()
	buf, err := encodeEntry(mt, msg)
	if err != nil {
		t.Fatal(err)
	}
	if resp := f.Apply(&raft.Log{Index: index, Type: raft.LogCommand, Data: buf}); resp != nil {
		t.Fatalf("apply type %d at %d: %v", mt, index, resp)
	}
}

// testEval is mock.Eval for job jobID (mock.Job's service job), with the
// times a stored eval has.
func testEval(id, jobID, trigger string) *structs.Evaluation {
	e := mock.Eval(id, mock.Job(jobID), trigger)
	e.CreateTime, e.ModifyTime = 1, 1
	return e
}

// populate applies one entry of most types so a snapshot has every table.
func populate(t *testing.T, f *FSM) {
	job := mock.Job("web")
	applyEntry(t, f, 10, structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: job, Eval: testEval("e1", "web", structs.EvalTriggerJobRegister), SubmitTime: 100})
	applyEntry(t, f, 11, structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: mock.Node("n1")})
	stored, _ := f.State().JobByID(nil, "default", "web")
	alloc := &structs.Allocation{ID: "a1", Namespace: "default", EvalID: "e1", Name: "web.web[0]", NodeID: "n1",
		JobID: "web", Job: stored, TaskGroup: "web", DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus:       structs.AllocClientStatusPending,
		AllocatedResources: &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{"t": {CpuShares: 100, MemoryMB: 300}}}}
	applyEntry(t, f, 12, structs.ApplyPlanResultsRequestType, &structs.ApplyPlanResultsRequest{
		AllocsUpdated: []*structs.Allocation{alloc}, EvalID: "e1", UpdatedAt: 200,
		Deployment: &structs.Deployment{ID: "d1", Namespace: "default", JobID: "web", Status: structs.DeploymentStatusRunning,
			TaskGroups: map[string]*structs.DeploymentState{"web": {DesiredTotal: 1}}},
	})
	done := testEval("e1", "web", structs.EvalTriggerJobRegister)
	done.Status = structs.EvalStatusComplete
	blocked := testEval("e2", "web", structs.EvalTriggerQueuedAllocs)
	blocked.Status, blocked.PreviousEval = structs.EvalStatusBlocked, "e1"
	done.BlockedEval = "e2"
	applyEntry(t, f, 13, structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: []*structs.Evaluation{done, blocked}})
	applyEntry(t, f, 14, structs.AllocClientUpdateRequestType, &structs.AllocUpdateRequest{Allocs: []*structs.Allocation{
		{ID: "a1", ClientStatus: structs.AllocClientStatusRunning, TaskStates: map[string]*structs.TaskState{"t": {State: structs.TaskStateRunning}}},
	}})
	applyEntry(t, f, 15, structs.NodeUpdateStatusRequestType, &structs.NodeUpdateStatusRequest{NodeID: "n1", Status: structs.NodeStatusDown, UpdatedAt: 300,
		Evals: []*structs.Evaluation{testEval("e3", "web", structs.EvalTriggerNodeUpdate)}})
	applyEntry(t, f, 16, structs.SchedulerConfigRequestType, &structs.SchedulerSetConfigRequest{Config: structs.SchedulerConfiguration{SchedulerAlgorithm: "spread"}})
	applyEntry(t, f, 16, structs.AutopilotConfigRequestType, &structs.AutopilotSetConfigEntry{Config: structs.AutopilotConfig{CleanupDeadServers: true, MaxTrailingLogs: 7}})
	job2 := mock.Job("api")
	applyEntry(t, f, 17, structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: job2, Eval: testEval("e4", "api", structs.EvalTriggerJobRegister)})
	applyEntry(t, f, 18, structs.JobDeregisterRequestType, &structs.JobDeregisterRequest{Namespace: "default", JobID: "api", Eval: testEval("e5", "api", structs.EvalTriggerJobDeregister)})
	populateACL(t, f)
}

// populateACL writes every ACL entry type, leaving one policy and two
// tokens (one of them the bootstrap token).
func populateACL(t *testing.T, f *FSM) {
	applyEntry(t, f, 19, structs.ACLPolicyUpsertRequestType, &structs.ACLPolicyUpsertRequest{Policies: []*structs.ACLPolicy{
		{Name: "readonly", Rules: `namespace "default" { policy = "read" }`}, {Name: "gone", Rules: `node { policy = "read" }`}}})
	applyEntry(t, f, 20, structs.ACLPolicyDeleteRequestType, &structs.ACLPolicyDeleteRequest{Names: []string{"gone"}})
	exp := time.Unix(1_800_000_000, 0).UTC()
	applyEntry(t, f, 21, structs.ACLTokenBootstrapRequestType, &structs.ACLTokenBootstrapRequest{Token: &structs.ACLToken{
		AccessorID: "00000000-0000-0000-0000-000000000001", SecretID: "00000000-0000-0000-0000-000000000002", Type: structs.ACLManagementToken}})
	applyEntry(t, f, 22, structs.ACLTokenUpsertRequestType, &structs.ACLTokenUpsertRequest{Tokens: []*structs.ACLToken{
		{AccessorID: "00000000-0000-0000-0000-000000000003", SecretID: "00000000-0000-0000-0000-000000000004", Type: structs.ACLClientToken, Policies: []string{"readonly"}, ExpirationTime: &exp},
		{AccessorID: "00000000-0000-0000-0000-000000000005", SecretID: "00000000-0000-0000-0000-000000000006", Type: structs.ACLClientToken}}})
	applyEntry(t, f, 23, structs.ACLTokenDeleteRequestType, &structs.ACLTokenDeleteRequest{AccessorIDs: []string{"00000000-0000-0000-0000-000000000005"}})
}

func TestFSM_AutopilotConfig_CASConflictChangesNothing(t *testing.T) {
	f := newTestFSM(t)
	applyEntry(t, f, 5, structs.AutopilotConfigRequestType, &structs.AutopilotSetConfigEntry{Config: structs.AutopilotConfig{MaxTrailingLogs: 1}})
	buf, err := structs.Encode(structs.AutopilotConfigRequestType, &structs.AutopilotSetConfigEntry{
		Config: structs.AutopilotConfig{MaxTrailingLogs: 2, ModifyIndex: 4}, CAS: true})
	if err != nil {
		t.Fatal(err)
	}
	if resp := f.Apply(&raft.Log{Index: 6, Type: raft.LogCommand, Data: buf}); resp != ErrCASConflict {
		t.Fatalf("stale CAS answered %v, want ErrCASConflict", resp)
	}
	applyEntry(t, f, 7, structs.AutopilotConfigRequestType, &structs.AutopilotSetConfigEntry{
		Config: structs.AutopilotConfig{MaxTrailingLogs: 3, ModifyIndex: 5}, CAS: true})
	got, _ := f.State().AutopilotConfig(nil)
	if got.MaxTrailingLogs != 3 || got.CreateIndex != 5 || got.ModifyIndex != 7 {
		t.Fatalf("stored %+v", got)
	}
}

func TestFSM_JobRegister_WritesJobAndEvalAtOneIndex(t *testing.T) {
	f := newTestFSM(t)
	applyEntry(t, f, 7, structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: mock.Job("web"), Eval: testEval("e1", "web", structs.EvalTriggerJobRegister)})
	job, _ := f.State().JobByID(nil, "default", "web")
	eval, _ := f.State().EvalByID(nil, "e1")
	if job == nil || eval == nil || job.ModifyIndex != 7 || eval.CreateIndex != 7 || eval.JobModifyIndex != 7 {
		t.Fatalf("job %+v eval %+v", job, eval)
	}
}

func TestFSM_JobDeregister_StopsOrPurges(t *testing.T) {
	f := newTestFSM(t)
	applyEntry(t, f, 1, structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: mock.Job("web")})
	applyEntry(t, f, 2, structs.JobDeregisterRequestType, &structs.JobDeregisterRequest{Namespace: "default", JobID: "web", Eval: testEval("e", "web", structs.EvalTriggerJobDeregister)})
	job, _ := f.State().JobByID(nil, "default", "web")
	if job == nil || !job.Stop {
		t.Fatalf("stopped job = %+v", job)
	}
	applyEntry(t, f, 3, structs.JobDeregisterRequestType, &structs.JobDeregisterRequest{Namespace: "default", JobID: "web", Purge: true})
	if job, _ := f.State().JobByID(nil, "default", "web"); job != nil {
		t.Fatalf("purged job still present")
	}
}

type recordingSink struct{ got []*structs.Evaluation }

func (r *recordingSink) EvalsWritten(evals []*structs.Evaluation, token string) {
	r.got = append(r.got, evals...)
}

func (r *recordingSink) CapacityChanged(node *structs.Node, index uint64) {}

func TestFSM_HandsWrittenEvalsToSinkWithIndexes(t *testing.T) {
	f := newTestFSM(t)
	sink := &recordingSink{}
	f.SetEvalSink(sink)
	applyEntry(t, f, 9, structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: mock.Job("web"), Eval: testEval("e1", "web", structs.EvalTriggerJobRegister)})
	if len(sink.got) != 1 || sink.got[0].ID != "e1" || sink.got[0].CreateIndex != 9 || sink.got[0].ModifyIndex != 9 {
		t.Fatalf("sink got %+v", sink.got)
	}
}

func TestFSM_ApplyErrorIsReturnedNotPanicked(t *testing.T) {
	f := newTestFSM(t)
	buf, _ := structs.Encode(structs.NodeUpdateStatusRequestType, &structs.NodeUpdateStatusRequest{NodeID: "missing", Status: "down"})
	if resp := f.Apply(&raft.Log{Index: 1, Type: raft.LogCommand, Data: buf}); resp == nil {
		t.Fatal("status update of an unknown node applied without error")
	}
}

type bufferSink struct{ bytes.Buffer }

func (b *bufferSink) ID() string    { return "test" }
func (b *bufferSink) Cancel() error { return nil }
func (b *bufferSink) Close() error  { return nil }

func TestFSM_SnapshotRestore_RoundTripsWholeState(t *testing.T) {
	src := newTestFSM(t)
	populate(t, src)
	snap, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	sink := &bufferSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatalf("persist: %v", err)
	}
	dst := newTestFSM(t)
	abandon := dst.State().AbandonCh()
	if err := dst.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
		t.Fatalf("restore: %v", err)
	}
	select {
	case <-abandon:
	case <-time.After(time.Second):
		t.Error("restore did not abandon the old state (blocking queries would not wake)")
	}
	assertSameState(t, src.State(), dst.State())
}

// assertSameState compares every table of two stores.
func assertSameState(t *testing.T, a, b *state.StateStore) {
	t.Helper()
	pairs := map[string][2]any{}
	add := func(name string, f func(s *state.StateStore) any) { pairs[name] = [2]any{f(a), f(b)} }
	add("jobs", func(s *state.StateStore) any { v, _ := s.Jobs(nil, "*"); return v })
	add("versions", func(s *state.StateStore) any { v, _ := s.JobVersionsByID(nil, "default", "web"); return v })
	add("evals", func(s *state.StateStore) any { v, _ := s.Evals(nil, "*"); return v })
	add("allocs", func(s *state.StateStore) any { v, _ := s.Allocs(nil, "*"); return v })
	add("nodes", func(s *state.StateStore) any { v, _ := s.Nodes(nil); return v })
	add("deployments", func(s *state.StateStore) any { v, _ := s.Deployments(nil, "*"); return v })
	add("scheduler_config", func(s *state.StateStore) any { v, _ := s.SchedulerConfig(nil); return v })
	add("acl_policies", func(s *state.StateStore) any { v, _ := s.ACLPolicies(nil, ""); return v })
	add("acl_tokens", func(s *state.StateStore) any { v, _ := s.ACLTokens(nil, ""); return v })
	pairs["acl_bootstrap"] = [2]any{a.ACLBootstrapIndex(), b.ACLBootstrapIndex()}
	if a.ACLBootstrapIndex() == 0 {
		t.Error("fixture did not bootstrap ACLs")
	}
	for _, table := range []string{state.TableJobs, state.TableJobVersion, state.TableNodes, state.TableAllocs, state.TableEvals, state.TableDeployment, state.TableSchedulerConfig, state.TableACLPolicies, state.TableACLTokens} {
		pairs["index:"+table] = [2]any{a.Index(table), b.Index(table)}
	}
	for name, p := range pairs {
		if !reflect.DeepEqual(p[0], p[1]) {
			t.Errorf("%s differs after restore:\n src %#v\n dst %#v", name, p[0], p[1])
		}
		if v := reflect.ValueOf(p[0]); v.Kind() == reflect.Slice && v.Len() == 0 {
			t.Errorf("%s is empty: the test would pass vacuously", name)
		}
	}
}
