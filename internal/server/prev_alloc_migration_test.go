package server

import (
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// Node.PrevAllocMigration answers only the node running the replacement,
// about its own previous alloc: where it ran, whether it stopped, and the
// migrate token that node checks (keyed with its secret); a down previous
// node says so, and a collected previous alloc is gone.
func TestPrevAllocMigration(t *testing.T) {
	an := newAllocNode(t, 2, 2) // two running allocs on an.node
	ctx := t.Context()
	prev, err := an.srv.State().AllocByID(nil, allocID(0))
	if err != nil || prev == nil {
		t.Fatal(prev, err)
	}
	next := mock.Alloc("11111111-2222-3333-4444-555555555555", prev.Job, an.other.ID)
	next.PreviousAllocation = prev.ID
	if _, err := an.srv.raftApply(ctx, structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Allocs: []*structs.Allocation{next}}); err != nil {
		t.Fatal(err)
	}
	ask := func(node *structs.Node, secret, allocID string) (*structs.PrevAllocMigrationResponse, error) {
		return NodePrevAllocMigration.Call(ctx, an.srv, &structs.PrevAllocMigrationArgs{NodeID: node.ID, SecretID: secret, AllocID: allocID})
	}
	r, err := ask(an.other, an.other.SecretID, next.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Terminal || r.Gone || r.NodeDown || r.PrevNodeID != an.node.ID || r.HTTPAddr != an.node.HTTPAddr ||
		!structs.CompareMigrateToken(prev.ID, an.node.SecretID, r.MigrateToken) {
		t.Fatalf("running previous alloc: %+v", r)
	}
	// Another node, or a wrong secret, learns nothing.
	for _, bad := range []struct {
		node          *structs.Node
		secret, alloc string
	}{{an.node, an.node.SecretID, next.ID}, {an.other, "wrong", next.ID}} {
		if _, err := ask(bad.node, bad.secret, bad.alloc); err == nil || !strings.Contains(err.Error(), "403") && !strings.Contains(err.Error(), "not on node") && !strings.Contains(err.Error(), "does not match") {
			t.Fatalf("node %s asking about %s: %v, want refused", bad.node.ID, bad.alloc, err)
		}
	}
	// The previous alloc stops: terminal.
	done := prev.Copy()
	done.ClientStatus = structs.AllocClientStatusComplete
	if _, err := NodeUpdateAlloc.Call(ctx, an.srv, &structs.AllocClientUpdateArgs{NodeID: an.node.ID, SecretID: an.node.SecretID,
		Allocs: []*structs.Allocation{done}}); err != nil {
		t.Fatal(err)
	}
	if r, err := ask(an.other, an.other.SecretID, next.ID); err != nil || !r.Terminal {
		t.Fatalf("after the previous alloc completed: %+v %v", r, err)
	}
	// Its node goes down: nothing to fetch.
	if _, err := an.srv.raftApply(ctx, structs.NodeUpdateStatusRequestType, &structs.NodeUpdateStatusRequest{NodeID: an.node.ID, Status: structs.NodeStatusDown}); err != nil {
		t.Fatal(err)
	}
	if r, err := ask(an.other, an.other.SecretID, next.ID); err != nil || !r.NodeDown || r.MigrateToken != "" {
		t.Fatalf("previous node down: %+v %v", r, err)
	}
	// The previous alloc is collected: gone.
	if _, err := an.srv.raftApply(ctx, structs.EvalDeleteRequestType, &structs.EvalDeleteRequest{Allocs: []string{prev.ID}}); err != nil {
		t.Fatal(err)
	}
	if r, err := ask(an.other, an.other.SecretID, next.ID); err != nil || !r.Gone {
		t.Fatalf("previous alloc collected: %+v %v", r, err)
	}
}
