package state

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

func TestUpsertNode_RegisterAndReregister(t *testing.T) {
	s := newStore(t)
	ws := memdb.NewWatchSet()
	s.NodeByID(ws, "n1")
	must(t, s.UpsertNode(10, mockNode("n1")))
	if !watchFired(ws) {
		t.Fatal("watch did not fire")
	}
	n, _ := s.NodeByID(nil, "n1")
	if n.CreateIndex != 10 || n.ModifyIndex != 10 || n.SchedulingEligibility != structs.NodeSchedulingEligible {
		t.Fatalf("registered %+v", n)
	}
	if n.Events[0].CreateIndex != 10 {
		t.Fatal("event not stamped")
	}
	if bySecret, _ := s.NodeBySecretID(nil, "secret-n1"); bySecret != n {
		t.Fatal("NodeBySecretID")
	}

	must(t, s.UpdateNodeDrain(11, "n1", &structs.DrainStrategy{Deadline: -1}, false, 1000, nil))

	re := mockNode("n1")
	re.SchedulingEligibility = "" // a client does not know the server's view
	re.Events = []*structs.NodeEvent{{Message: "re-registered", Timestamp: t0}}
	re.Attributes["new"] = "attr"
	must(t, s.UpsertNode(12, re))
	n, _ = s.NodeByID(nil, "n1")
	switch {
	case n.CreateIndex != 10 || n.ModifyIndex != 12:
		t.Fatalf("indexes %d/%d", n.CreateIndex, n.ModifyIndex)
	case n.DrainStrategy == nil || n.SchedulingEligibility != structs.NodeSchedulingIneligible:
		t.Fatal("re-registration reset the drain")
	case n.LastDrain == nil:
		t.Fatal("re-registration dropped the drain history")
	case len(n.Events) != 2 || n.Events[1].Message != "re-registered" || n.Events[1].CreateIndex != 12:
		t.Fatalf("events %+v", n.Events)
	case n.Attributes["new"] != "attr":
		t.Fatal("attributes not updated")
	}
	wantIndex(t, s, TableNodes, 12)
}

func TestUpdateNodeStatus(t *testing.T) {
	s := newStore(t)
	must(t, s.UpsertNode(10, mockNode("n1")))
	before, _ := s.NodeByID(nil, "n1")
	ev := &structs.NodeEvent{Message: "down", Timestamp: t0}
	must(t, s.UpdateNodeStatus(11, "n1", structs.NodeStatusDown, 777, ev))
	n, _ := s.NodeByID(nil, "n1")
	if n.Status != structs.NodeStatusDown || n.StatusUpdatedAt != 777 || n.ModifyIndex != 11 {
		t.Fatalf("updated %+v", n)
	}
	if len(n.Events) != 2 || n.Events[1].CreateIndex != 11 || ev.CreateIndex != 0 {
		t.Fatal("event not appended as a stamped copy")
	}
	if before.Status != structs.NodeStatusReady || len(before.Events) != 1 {
		t.Fatal("stored object was modified in place")
	}
	if err := s.UpdateNodeStatus(12, "nope", structs.NodeStatusDown, 0, nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown node: %v", err)
	}
	if err := s.UpdateNodeStatus(12, "n1", "bogus", 0, nil); err == nil {
		t.Fatal("invalid status accepted")
	}
}

func TestNodeEventsCapped(t *testing.T) {
	s := newStore(t)
	must(t, s.UpsertNode(10, mockNode("n1")))
	for i := 0; i < 15; i++ {
		must(t, s.UpdateNodeStatus(uint64(11+i), "n1", structs.NodeStatusReady, 0, &structs.NodeEvent{Message: fmt.Sprint(i)}))
	}
	n, _ := s.NodeByID(nil, "n1")
	if len(n.Events) != maxNodeEvents || n.Events[maxNodeEvents-1].Message != "14" {
		t.Fatalf("%d events, last %q", len(n.Events), n.Events[len(n.Events)-1].Message)
	}
}

func TestNodeEligibilityAndDrain(t *testing.T) {
	s := newStore(t)
	must(t, s.UpsertNode(10, mockNode("n1")))
	get := func() *structs.Node { n, _ := s.NodeByID(nil, "n1"); return n }

	must(t, s.UpdateNodeEligibility(11, "n1", structs.NodeSchedulingIneligible, 1, nil))
	if get().SchedulingEligibility != structs.NodeSchedulingIneligible {
		t.Fatal("not ineligible")
	}
	must(t, s.UpdateNodeEligibility(12, "n1", structs.NodeSchedulingEligible, 2, nil))

	drain := &structs.DrainStrategy{Deadline: 3600}
	must(t, s.UpdateNodeDrain(13, "n1", drain, false, 100, &structs.NodeEvent{Message: "drain"}))
	n := get()
	if n.DrainStrategy == nil || n.DrainStrategy == drain || n.SchedulingEligibility != structs.NodeSchedulingIneligible {
		t.Fatalf("drain not applied as a copy: %+v", n)
	}
	if n.LastDrain == nil || n.LastDrain.Status != drainStatusDraining || n.LastDrain.StartedAt.Unix() != 100 {
		t.Fatalf("last drain %+v", n.LastDrain)
	}
	if err := s.UpdateNodeEligibility(14, "n1", structs.NodeSchedulingEligible, 3, nil); !errors.Is(err, ErrEligibleWhileDraining) {
		t.Fatalf("eligible while draining: %v", err)
	}
	if get().ModifyIndex != 13 {
		t.Fatal("rejected write changed the node")
	}

	must(t, s.UpdateNodeDrain(15, "n1", nil, false, 200, nil))
	n = get()
	if n.DrainStrategy != nil || n.SchedulingEligibility != structs.NodeSchedulingIneligible {
		t.Fatal("ending a drain without markEligible should leave the node ineligible")
	}
	if n.LastDrain.Status != drainStatusComplete || n.LastDrain.UpdatedAt.Unix() != 200 || n.LastDrain.StartedAt.Unix() != 100 {
		t.Fatalf("last drain %+v", n.LastDrain)
	}
	must(t, s.UpdateNodeDrain(16, "n1", &structs.DrainStrategy{}, false, 300, nil))
	must(t, s.UpdateNodeDrain(17, "n1", nil, true, 400, nil))
	if get().SchedulingEligibility != structs.NodeSchedulingEligible {
		t.Fatal("markEligible ignored")
	}
	wantIndex(t, s, TableNodes, 17)
}

func TestDeleteNodesAndReads(t *testing.T) {
	s := newStore(t)
	for i, id := range []string{"n1", "n10", "n2"} {
		must(t, s.UpsertNode(uint64(10+i), mockNode(id)))
	}
	ids := func(ns []*structs.Node, err error) (out []string) {
		must(t, err)
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}
	if got := ids(s.NodesByIDPrefix(nil, "n1")); !equalStrings(got, []string{"n1", "n10"}) {
		t.Fatalf("prefix: %v", got)
	}
	if err := s.DeleteNodes(20, []string{"n1", "missing"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete with unknown node: %v", err)
	}
	if got := ids(s.Nodes(nil)); len(got) != 3 {
		t.Fatalf("failed delete removed nodes: %v", got)
	}
	ws := memdb.NewWatchSet()
	s.Nodes(ws)
	must(t, s.DeleteNodes(21, []string{"n1", "n2"}))
	if !watchFired(ws) {
		t.Fatal("watch did not fire")
	}
	if got := ids(s.Nodes(nil)); !equalStrings(got, []string{"n10"}) {
		t.Fatalf("after delete: %v", got)
	}
	wantIndex(t, s, TableNodes, 21)
}

func TestNodesDraining_ReadsAndWatchesOnlyDrainingNodes(t *testing.T) {
	s := newStore(t)
	for i, id := range []string{"n1", "n2", "n3"} {
		if err := s.UpsertNode(uint64(10+i), mockNode(id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.UpdateNodeDrain(20, "n2", &structs.DrainStrategy{Deadline: time.Hour}, false, 1, nil); err != nil {
		t.Fatal(err)
	}
	ws := memdb.NewWatchSet()
	got, err := s.NodesDraining(ws)
	if err != nil || len(got) != 1 || got[0].ID != "n2" {
		t.Fatalf("draining = %v, %v", got, err)
	}
	if err := s.UpsertNode(21, mockNode("n4")); err != nil { // not draining
		t.Fatal(err)
	}
	if watchFired(ws) {
		t.Fatal("a non-draining node's registration woke the drain watch")
	}
	if err := s.UpdateNodeDrain(22, "n2", nil, true, 2, nil); err != nil {
		t.Fatal(err)
	}
	if !watchFired(ws) {
		t.Fatal("ending the drain did not wake the drain watch")
	}
}
