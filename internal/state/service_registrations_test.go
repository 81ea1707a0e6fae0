package state

import (
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

func mockRegistration(id, name, nodeID, allocID string) *structs.ServiceRegistration {
	return &structs.ServiceRegistration{
		ID: id, ServiceName: name, Namespace: "default", NodeID: nodeID, Datacenter: "dc1",
		JobID: "web", AllocID: allocID, Tags: []string{"v1"}, Address: "10.0.0.1", Port: 8080,
	}
}

// populateServiceRegistrations fills the catalog for the persist tests.
func populateServiceRegistrations(t *testing.T, s *StateStore, index uint64) {
	t.Helper()
	must(t, s.UpsertServiceRegistrations(index, []*structs.ServiceRegistration{
		mockRegistration("r1", "web", "n1", "a1"), mockRegistration("r2", "web", "n2", "a2"),
	}))
	must(t, s.UpsertRootKey(index, &structs.RootKey{KeyID: "k1", Algorithm: structs.RootKeyAlgorithmAES256GCM,
		State: structs.RootKeyStateActive, CreateTime: 5, Key: []byte("0123456789abcdef0123456789abcdef")}, true))
	must(t, s.ApplyVariable(index, &structs.VariableApplyRequest{Op: structs.VarOpLockAcquire, LockID: "l1", Now: 7,
		Var: &structs.VariableEncrypted{VariableMetadata: structs.VariableMetadata{Namespace: "default", Path: "app/db",
			Lock: &structs.VariableLock{TTL: time.Minute, LockDelay: time.Second}}, Data: []byte{1, 2, 3}, KeyID: "k1"}}))
}

func TestServiceRegistrations_UpsertListDelete(t *testing.T) {
	s := newStore(t)
	other := mockRegistration("r3", "api", "n1", "a3")
	other.Namespace = "prod"
	must(t, s.UpsertServiceRegistrations(10, []*structs.ServiceRegistration{
		mockRegistration("r1", "web", "n1", "a1"), mockRegistration("r2", "web", "n2", "a2"), other,
	}))

	byName, _ := s.ServiceRegistrationsByName(nil, "default", "web")
	if len(byName) != 2 {
		t.Fatalf("web registrations: %d, want 2", len(byName))
	}
	if def, _ := s.ServiceRegistrations(nil, "default"); len(def) != 2 {
		t.Fatalf("default namespace: %d registrations, want 2", len(def))
	}
	if all, _ := s.ServiceRegistrations(nil, AllNamespaces); len(all) != 3 {
		t.Fatalf("all namespaces: %d registrations, want 3", len(all))
	}
	if byAlloc, _ := s.ServiceRegistrationsByAlloc(nil, "a2"); len(byAlloc) != 1 || byAlloc[0].ID != "r2" {
		t.Fatalf("by alloc: %+v", byAlloc)
	}
	if byJob, _ := s.ServiceRegistrationsByJob(nil, "default", "web"); len(byJob) != 2 {
		t.Fatalf("by job: %d", len(byJob))
	}

	// The same registration again changes nothing and wakes no one.
	ws := memdb.NewWatchSet()
	_, _ = s.ServiceRegistrationsByName(ws, "default", "web")
	must(t, s.UpsertServiceRegistrations(11, []*structs.ServiceRegistration{mockRegistration("r1", "web", "n1", "a1")}))
	if s.Index(TableServiceRegistrations) != 10 {
		t.Fatalf("unchanged upsert moved the table index to %d", s.Index(TableServiceRegistrations))
	}
	// A changed port is written, keeping CreateIndex.
	moved := mockRegistration("r1", "web", "n1", "a1")
	moved.Port = 9090
	must(t, s.UpsertServiceRegistrations(12, []*structs.ServiceRegistration{moved}))
	got, _ := s.ServiceRegistrationByID(nil, "r1")
	if got.Port != 9090 || got.CreateIndex != 10 || got.ModifyIndex != 12 {
		t.Fatalf("after update: %+v", got)
	}
	if !watchFired(ws) {
		t.Fatal("a changed registration did not wake the watcher")
	}

	must(t, s.DeleteServiceRegistrations(13, []string{"r1", "unknown"}))
	if byName, _ := s.ServiceRegistrationsByName(nil, "default", "web"); len(byName) != 1 {
		t.Fatalf("after delete: %d registrations", len(byName))
	}
}

func TestServiceRegistrations_NodeDownDropsThem(t *testing.T) {
	s := newStore(t)
	must(t, s.UpsertNode(5, mockNode("n1")))
	must(t, s.UpsertNode(6, mockNode("n2")))
	must(t, s.UpsertServiceRegistrations(10, []*structs.ServiceRegistration{
		mockRegistration("r1", "web", "n1", "a1"), mockRegistration("r2", "web", "n2", "a2"),
	}))
	must(t, s.UpdateNodeStatus(11, "n1", structs.NodeStatusDown, 0, nil))
	left, _ := s.ServiceRegistrationsByName(nil, "default", "web")
	if len(left) != 1 || left[0].NodeID != "n2" {
		t.Fatalf("after n1 went down: %+v", left)
	}
	if s.Index(TableServiceRegistrations) != 11 {
		t.Fatalf("catalog index %d, want the status change's 11", s.Index(TableServiceRegistrations))
	}
	must(t, s.DeleteNodes(12, []string{"n2"}))
	if left, _ := s.ServiceRegistrations(nil, AllNamespaces); len(left) != 0 {
		t.Fatalf("a deregistered node's services survived: %+v", left)
	}
}
