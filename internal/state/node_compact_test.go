package state

import (
	"reflect"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// Nodes with equal attributes and resources share them; a status change
// copies only the node's top level.
func TestUpsertNode_SharesEqualFields(t *testing.T) {
	s := newStore(t)
	must(t, s.UpsertNode(1, mockNode("n1")))
	other := mockNode("n2")
	other.Attributes = map[string]string{"kernel.name": "plan9"}
	must(t, s.UpsertNode(2, other))
	must(t, s.UpsertNode(3, mockNode("n3")))
	n1, _ := s.NodeByID(nil, "n1")
	n2, _ := s.NodeByID(nil, "n2")
	n3, _ := s.NodeByID(nil, "n3")
	if !sameMap(n1.Attributes, n3.Attributes) || n1.NodeResources != n3.NodeResources {
		t.Error("equal attributes or resources not shared")
	}
	if sameMap(n1.Attributes, n2.Attributes) || n2.Attributes["kernel.name"] != "plan9" {
		t.Error("different attributes shared")
	}
	must(t, s.UpdateNodeStatus(4, "n1", structs.NodeStatusDown, 0, &structs.NodeEvent{Message: "down"}))
	down, _ := s.NodeByID(nil, "n1")
	if !sameMap(down.Attributes, n1.Attributes) || n1.Status != structs.NodeStatusReady || len(down.Events) != len(n1.Events)+1 {
		t.Error("status change copied nested fields or changed the stored node")
	}
}

// sameMap reports whether two maps are the same map (not just equal).
func sameMap(a, b map[string]string) bool {
	return a != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
