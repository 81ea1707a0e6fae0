package state

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// NodeSet is rebuilt after every change to the nodes table, reused while
// the table is unchanged, and a snapshot keeps seeing its own version.
func TestNodeSet_FollowsTableVersions(t *testing.T) {
	s, err := NewStateStore()
	if err != nil {
		t.Fatal(err)
	}
	node := func(id string) *structs.Node {
		return &structs.Node{ID: id, Name: id, Datacenter: "dc1", Status: structs.NodeStatusReady}
	}
	if err := s.UpsertNode(1, node("a")); err != nil {
		t.Fatal(err)
	}
	list1, byID1, err := s.NodeSet(nil)
	if err != nil || len(list1) != 1 || byID1["a"] == nil {
		t.Fatalf("first set: %v %v %v", list1, byID1, err)
	}
	if list, _, _ := s.NodeSet(nil); &list[0] != &list1[0] {
		t.Error("unchanged table: set rebuilt instead of reused")
	}
	old := s.Snapshot()
	if err := s.UpsertNode(2, node("b")); err != nil {
		t.Fatal(err)
	}
	if list, byID, _ := s.NodeSet(nil); len(list) != 2 || byID["b"] == nil {
		t.Fatalf("after a write: %d nodes", len(list))
	}
	if list, byID, _ := old.NodeSet(nil); len(list) != 1 || byID["b"] != nil {
		t.Fatalf("old snapshot sees %d nodes", len(list))
	}
	if err := s.UpdateNodeStatus(3, "a", structs.NodeStatusDown, 0, nil); err != nil {
		t.Fatal(err)
	}
	if _, byID, _ := s.NodeSet(nil); byID["a"].Status != structs.NodeStatusDown {
		t.Fatal("status change not seen")
	}
}
