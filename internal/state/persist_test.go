package state

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/go-msgpack/v2/codec"

	"github.com/drover-project/drover/internal/structs"
)

// populate writes something into every table, with nested fields of every
// kind (maps, slices, pointers, times, durations, untyped task config).
func populate(t *testing.T, s *StateStore) {
	t.Helper()
	job := mockJob("web")
	job.Periodic = nil
	job.Update = structs.UpdateStrategy{MaxParallel: 1, MinHealthyTime: 10 * time.Second}
	job.TaskGroups[0].StopAfterClientDisconnect = ptr(time.Minute)
	must(t, s.UpsertJob(10, 100, job))
	job2 := mockJob("web")
	job2.TaskGroups[0].Count = 3
	count := int64(3)
	must(t, s.UpsertJobEntry(11, &structs.JobRegisterRequest{Job: job2, SubmitTime: 101,
		Submission:   &structs.JobSubmission{Source: `job "web" {}`, Format: "hcl2", VariableFlags: map[string]string{"a": "1"}},
		ScalingEvent: &structs.ScalingEventEntry{Group: job2.TaskGroups[0].Name, Event: &structs.ScalingEvent{Count: &count, PreviousCount: 1, Message: "up", Time: 5}}}))
	other := mockJob("api")
	other.Namespace = "prod"
	must(t, s.UpsertJob(12, 102, other))
	stored, _ := s.JobByID(nil, "default", "web")

	must(t, s.UpsertNodePools(12, []*structs.NodePool{{Name: "gpu", Description: "has GPUs", Meta: map[string]string{"k": "v"}}}))
	node := mockNode("n1")
	node.Meta = map[string]string{"rack": "r1"}
	node.ReservedResources = &structs.NodeReservedResources{CpuShares: 100, ReservedPorts: "22"}
	must(t, s.UpsertNode(13, node))
	must(t, s.UpsertNode(14, mockNode("n2")))
	must(t, s.UpdateNodeDrain(15, "n2", &structs.DrainStrategy{Deadline: time.Hour, ForceDeadline: t0.Add(time.Hour), StartedAt: t0}, false, 1_700_000_000, &structs.NodeEvent{Message: "drain", Details: map[string]string{"k": "v"}, Timestamp: t0}))

	e1 := mockEval("e1", "web")
	e2 := mockEval("e2", "web")
	e1.NextEval, e2.PreviousEval = "e2", "e1"
	must(t, s.UpsertEvals(16, []*structs.Evaluation{e1, e2}))

	must(t, s.UpsertDeployment(17, mockDeployment("d1", stored)))
	a := mockAlloc("a1", stored, "n1")
	a.DeploymentID = "d1"
	a.RescheduleTracker = &structs.RescheduleTracker{Events: []*structs.RescheduleEvent{{RescheduleTime: 5, PrevAllocID: "x", Delay: time.Second}}}
	a.PreemptedAllocations = []string{"p1"}
	must(t, s.UpsertAllocs(18, []*structs.Allocation{a, mockAlloc("a2", stored, "n2")}))
	must(t, s.UpdateAllocsFromClient(19, []*structs.Allocation{{
		ID: "a1", ClientStatus: structs.AllocClientStatusRunning,
		TaskStates: map[string]*structs.TaskState{"web": {
			State: structs.TaskStateRunning, StartedAt: t0, LastRestart: t0.Add(time.Second),
			Events: []*structs.TaskEvent{{Type: "Started", Time: 7, Details: map[string]string{"a": "b"}, KillTimeout: time.Second}},
		}},
		DeploymentStatus: &structs.AllocDeploymentStatus{Healthy: ptr(true), Timestamp: t0},
	}}))
	must(t, s.UpdateAllocsDesiredTransitions(20, map[string]*structs.DesiredTransition{"a2": {Migrate: ptr(true)}}, nil))
	cfg := structs.DefaultSchedulerConfiguration()
	cfg.MemoryOversubscriptionEnabled = true
	must(t, s.SchedulerSetConfig(21, cfg))
	if _, err := s.AutopilotSetConfig(21, &structs.AutopilotConfig{CleanupDeadServers: true, LastContactThreshold: time.Second, MaxTrailingLogs: 99}, false); err != nil {
		t.Fatal(err)
	}
	must(t, s.UpsertNamespaces(22, []*structs.Namespace{{Name: "prod", Description: "p", Meta: map[string]string{"team": "a"}}}))
	populateServiceRegistrations(t, s, 21)
	must(t, s.UpsertACLPolicies(23, []*structs.ACLPolicy{{Name: "readonly", Rules: `namespace "default" { policy = "read" }`}}))
	must(t, s.UpsertACLRoles(23, []*structs.ACLRole{{ID: "00000000-0000-0000-0000-0000000000a1", Name: "readers",
		Description: "r", Policies: []*structs.ACLRolePolicyLink{{Name: "readonly"}}}}))
	must(t, s.UpsertACLAuthMethods(23, []*structs.ACLAuthMethod{{Name: "corp", Type: structs.ACLAuthMethodTypeJWT,
		TokenLocality: "local", MaxTokenTTL: time.Hour, Default: true, CreateTime: t0, ModifyTime: t0,
		Config: &structs.ACLAuthMethodConfig{JWKSURL: "https://idp/jwks", BoundAudiences: []string{"drover"},
			ClaimMappings: map[string]string{"sub": "user"}, ExpirationLeeway: time.Second}}}))
	must(t, s.UpsertACLBindingRules(23, []*structs.ACLBindingRule{{ID: "00000000-0000-0000-0000-0000000000b1",
		AuthMethod: "corp", Selector: `value.user == "a"`, BindType: "policy", BindName: "readonly", CreateTime: t0, ModifyTime: t0}}))
	must(t, s.UpsertOneTimeToken(23, &structs.OneTimeToken{OneTimeSecretID: "00000000-0000-0000-0000-0000000000c1",
		AccessorID: "00000000-0000-0000-0000-000000000001", ExpiresAt: t0.Add(10 * time.Minute)}))
	must(t, s.UpsertOIDCAuthRequest(23, &structs.OIDCAuthRequest{State: "st_1", AuthMethodName: "corp", ClientNonce: "cn",
		RedirectURI: "http://localhost:4649/oidc/callback", PKCEVerifier: "v", ExpiresAt: t0.Add(10 * time.Minute)}, t0))
	exp := t0.Add(time.Hour)
	must(t, s.UpsertACLTokens(24, []*structs.ACLToken{{
		AccessorID: "00000000-0000-0000-0000-000000000001", SecretID: "00000000-0000-0000-0000-000000000002",
		Type: structs.ACLClientToken, Policies: []string{"readonly"}, CreateTime: t0, ExpirationTime: &exp, ExpirationTTL: time.Hour,
		Roles: []*structs.ACLTokenRoleLink{{ID: "00000000-0000-0000-0000-0000000000a1", Name: "readers"}},
	}}))
	must(t, s.BootstrapACLToken(25, 0, &structs.ACLToken{
		AccessorID: "00000000-0000-0000-0000-000000000003", SecretID: "00000000-0000-0000-0000-000000000004",
		Type: structs.ACLManagementToken, CreateTime: t0,
	}))
}

// dumpTables returns every row of every table, keyed by table.
func dumpTables(t *testing.T, r reader) map[string][]any {
	t.Helper()
	out := map[string][]any{}
	txn := r.txn()
	for _, st := range snapshotTables {
		it, err := txn.Get(st.table, "id")
		must(t, err)
		for obj := it.Next(); obj != nil; obj = it.Next() {
			out[st.table] = append(out[st.table], obj)
		}
	}
	return out
}

// populatedSnapshot persists a populated store.
func populatedSnapshot(t *testing.T) *bytes.Buffer {
	t.Helper()
	src := newStore(t)
	populate(t, src)
	var buf bytes.Buffer
	must(t, src.Snapshot().Persist(&buf))
	return &buf
}

func TestPersistRestore_RoundTrip(t *testing.T) {
	src := newStore(t)
	populate(t, src)
	var buf bytes.Buffer
	must(t, src.Snapshot().Persist(&buf))

	dst := newStore(t)
	abandon := dst.AbandonCh()
	ws := memdb.NewWatchSet()
	dst.Jobs(ws, "*")
	must(t, dst.Restore(&buf))

	select {
	case <-abandon:
	default:
		t.Fatal("AbandonCh not closed by Restore")
	}
	select {
	case <-dst.AbandonCh():
		t.Fatal("new AbandonCh already closed")
	default:
	}

	want, got := dumpTables(t, src.reader), dumpTables(t, dst.reader)
	for _, st := range snapshotTables {
		if len(want[st.table]) == 0 {
			t.Errorf("fixture left table %s empty", st.table)
		}
		if len(got[st.table]) != len(want[st.table]) {
			t.Errorf("%s: %d rows restored, want %d", st.table, len(got[st.table]), len(want[st.table]))
			continue
		}
		for i := range want[st.table] {
			if !reflect.DeepEqual(got[st.table][i], want[st.table][i]) {
				t.Errorf("%s row %d differs:\n got %#v\nwant %#v", st.table, i, got[st.table][i], want[st.table][i])
			}
		}
	}
	if dst.LatestIndex() != 25 || src.LatestIndex() != 25 {
		t.Fatalf("latest index %d / %d", dst.LatestIndex(), src.LatestIndex())
	}
	for _, table := range []string{TableJobs, TableJobVersion, TableNodes, TableAllocs, TableEvals, TableDeployment, TableSchedulerConfig, TableACLPolicies, TableACLTokens, TableACLRoles, ACLBootstrapKey} {
		if dst.Index(table) != src.Index(table) {
			t.Errorf("index %s: %d, want %d", table, dst.Index(table), src.Index(table))
		}
	}

}

func TestRestore_ReplacesContents(t *testing.T) {
	src := newStore(t)
	must(t, src.UpsertNode(5, mockNode("only")))
	var buf bytes.Buffer
	must(t, src.Snapshot().Persist(&buf))

	dst := newStore(t)
	populate(t, dst)
	must(t, dst.Restore(&buf))
	if nodes, _ := dst.Nodes(nil); len(nodes) != 1 || nodes[0].ID != "only" {
		t.Fatalf("nodes after restore: %v", nodes)
	}
	if jobs, _ := dst.Jobs(nil, "*"); len(jobs) != 0 {
		t.Fatal("old jobs survived restore")
	}
	if dst.LatestIndex() != 5 {
		t.Fatalf("latest index %d", dst.LatestIndex())
	}
}

func TestRestore_BadStreamLeavesStoreUnchanged(t *testing.T) {
	s := newStore(t)
	populate(t, s)
	abandon := s.AbandonCh()
	if err := s.Restore(bytes.NewReader([]byte{0x07, 0xc1, 0xff})); err == nil {
		t.Fatal("garbage restored without error")
	}
	select {
	case <-abandon:
		t.Fatal("failed restore abandoned the store")
	default:
	}
	if s.LatestIndex() != 25 {
		t.Fatal("failed restore changed the store")
	}
}

func TestSnapshotIsolation(t *testing.T) {
	s := newStore(t)
	must(t, s.UpsertNode(10, mockNode("n1")))
	snap := s.Snapshot()
	must(t, s.UpsertNode(11, mockNode("n2")))
	must(t, s.UpdateNodeStatus(12, "n1", structs.NodeStatusDown, 0, nil))
	nodes, _ := snap.Nodes(nil)
	if len(nodes) != 1 || nodes[0].Status != structs.NodeStatusReady {
		t.Fatalf("snapshot saw later writes: %+v", nodes)
	}
	if snap.Index(TableNodes) != 10 || snap.LatestIndex() != 10 || s.Index(TableNodes) != 12 {
		t.Fatal("snapshot indexes not frozen")
	}
}

// TestConcurrentReadsWritesRestore is for the race detector: reads on the
// store and on snapshots run while writes and a Restore happen.
func TestConcurrentReadsWritesRestore(t *testing.T) {
	src := newStore(t)
	populate(t, src)
	var buf bytes.Buffer
	must(t, src.Snapshot().Persist(&buf))

	s := newStore(t)
	populate(t, s)
	done := make(chan struct{})
	readers := make(chan struct{}, 2)
	for i := 0; i < 2; i++ {
		go func() {
			defer func() { readers <- struct{}{} }()
			for {
				select {
				case <-done:
					return
				default:
				}
				s.AllocsByNode(nil, "n1")
				s.Snapshot().Jobs(nil, "*")
				_ = s.LatestIndex()
				select {
				case <-s.AbandonCh():
				default:
				}
			}
		}()
	}
	job, _ := s.JobByID(nil, "default", "web")
	for i := 0; i < 50; i++ {
		must(t, s.UpsertAllocs(uint64(100+i), []*structs.Allocation{mockAlloc(fmt.Sprint("c", i), job, "n1")}))
	}
	must(t, s.Restore(&buf))
	close(done)
	<-readers
	<-readers
}

// A restored store shares what the snapshotted one shared: allocs point at
// the restored job rows and at one copy of their common resources.
func TestPersistRestore_KeepsAllocSharing(t *testing.T) {
	dst := newStore(t)
	must(t, dst.Restore(populatedSnapshot(t)))

	a1, _ := dst.AllocByID(nil, "a1")
	a2, _ := dst.AllocByID(nil, "a2")
	live, _ := dst.JobByID(nil, "default", "web")
	versions, _ := dst.JobVersionsByID(nil, "default", "web")
	if a1.Job != live && a1.Job != versions[0] {
		t.Error("restored alloc holds its own copy of its job")
	}
	if a1.AllocatedResources != a2.AllocatedResources || a1.Metrics != a2.Metrics {
		t.Error("restored allocs do not share their resources and metrics")
	}
}

// TestPersistRestore_SameBytes restores a snapshot and persists the
// restored store again: the second snapshot must equal the first byte for
// byte (map keys sorted so that both encode maps alike). It holds what
// Restore rebuilds (alloc jobs, shared metrics and resources, interned
// strings) to exactly what was saved.
func TestPersistRestore_SameBytes(t *testing.T) {
	h := newCanonicalHandle()
	src := newStore(t)
	populateShared(t, src)
	var first bytes.Buffer
	must(t, src.Snapshot().persist(&first, h))

	dst := newStore(t)
	must(t, dst.Restore(bytes.NewReader(first.Bytes())))
	var second bytes.Buffer
	must(t, dst.Snapshot().persist(&second, h))
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatalf("persist(restore(persist(S))) differs from persist(S): %d bytes, want %d", second.Len(), first.Len())
	}
}

// populateShared is populate with more allocs of two job versions, so
// that references to stored jobs, job versions and shared records all
// repeat.
func populateShared(t *testing.T, src *StateStore) {
	t.Helper()
	populate(t, src)
	stored, _ := src.JobByID(nil, "default", "web")
	versions, _ := src.JobVersionsByID(nil, "default", "web")
	old := versions[len(versions)-1]
	if old == stored {
		t.Fatal("fixture has one version of job web")
	}
	var more []*structs.Allocation
	for i := range 6 {
		job := stored
		if i%2 == 1 {
			job = old
		}
		more = append(more, mockAlloc(fmt.Sprintf("b%d", i), job, "n1"))
	}
	must(t, src.UpsertAllocs(30, more))
}

// newCanonicalHandle is snapshotHandle's settings with map keys sorted.
func newCanonicalHandle() *codec.MsgpackHandle {
	h := &codec.MsgpackHandle{}
	h.RawToString = snapshotHandle.RawToString
	h.WriteExt = snapshotHandle.WriteExt
	h.MapType = snapshotHandle.MapType
	h.StructToArray = snapshotHandle.StructToArray
	h.Canonical = true
	return h
}

// A restore that fails, whether decoding (a cut-off stream) or inserting
// (a row no index takes), leaves the store as it was and no goroutine
// behind.
func TestRestore_FailsPartWay(t *testing.T) {
	src := newStore(t)
	job := mockJob("web")
	must(t, src.UpsertJob(10, 0, job))
	stored, _ := src.JobByID(nil, "default", "web")
	must(t, src.UpsertNode(11, mockNode("n1")))
	var allocs []*structs.Allocation
	for i := range 3 * restoreBatch {
		allocs = append(allocs, mockAlloc(fmt.Sprintf("a%05d", i), stored, "n1"))
	}
	must(t, src.UpsertAllocs(12, allocs))
	var good bytes.Buffer
	must(t, src.Snapshot().Persist(&good))

	// A node without an ID, early in the stream: its insert fails.
	var badRow bytes.Buffer
	enc := codec.NewEncoder(&badRow, snapshotHandle)
	must(t, enc.Encode(recordType(4)))
	must(t, enc.Encode(&structs.Node{Name: "no-id"}))
	badRow.Write(good.Bytes())

	for name, stream := range map[string][]byte{
		"cut off":    good.Bytes()[:good.Len()*2/3],
		"bad insert": badRow.Bytes(),
	} {
		t.Run(name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			dst := newStore(t)
			populate(t, dst)
			if err := dst.Restore(bytes.NewReader(stream)); err == nil {
				t.Fatal("restored without error")
			}
			if dst.LatestIndex() != 25 {
				t.Fatal("failed restore changed the store")
			}
			// The decoder's goroutine may still be returning (and the
			// runtime may have started its finalizer goroutine).
			for wait := 0; runtime.NumGoroutine() > before+1 || (wait < 100 && runtime.NumGoroutine() > before); wait++ {
				if wait > 1000 {
					t.Fatalf("%d goroutines after a failed restore, %d before", runtime.NumGoroutine(), before)
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
	dst := newStore(t)
	must(t, dst.Restore(bytes.NewReader(good.Bytes())))
	if got, _ := dst.Allocs(nil, "*"); len(got) != len(allocs) {
		t.Fatalf("%d allocs restored, want %d", len(got), len(allocs))
	}
}
