package server

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// catalogFixture is a server with two nodes (secrets "sa", "sb") and one
// running alloc of job "web" on each.
func catalogFixture(t *testing.T) *Server {
	t.Helper()
	s := testServer(t, "")
	// The leader creates the first root key as it establishes leadership;
	// identities are signed with it.
	testutil.WaitFor(t, 10*time.Second, "the first root key", func() bool {
		k, err := s.State().ActiveRootKey(nil)
		return err == nil && k != nil
	})
	for id, secret := range map[string]string{nodeA: "sa", nodeB: "sb"} {
		n := simNode(id, "dc1")
		n.SecretID = secret
		if _, err := s.raftApply(context.Background(), structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: n}); err != nil {
			t.Fatal(err)
		}
	}
	var allocs []*structs.Allocation
	for _, n := range []string{nodeA, nodeB} {
		allocs = append(allocs, &structs.Allocation{
			ID: "alloc-" + n[:4], Namespace: "default", JobID: "web", TaskGroup: "g", NodeID: n,
			DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
		})
	}
	if _, err := s.raftApply(context.Background(), structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Allocs: allocs}); err != nil {
		t.Fatal(err)
	}
	return s
}

func reg(id, allocID string, port int, tags ...string) *structs.ServiceRegistration {
	return &structs.ServiceRegistration{ID: id, ServiceName: "web", AllocID: allocID, Address: "10.0.0.1", Port: port, Tags: tags}
}

func upsertAs(s *Server, node, secret string, regs ...*structs.ServiceRegistration) error {
	_, err := ServiceRegistrationUpsert.Call(context.Background(), s, &structs.ServiceRegistrationUpsertRequest{
		Services: regs, NodeID: node, SecretID: secret,
	})
	return err
}

func TestServiceRegistrationUpsert_AuthenticatesAndFillsServerFields(t *testing.T) {
	s := catalogFixture(t)
	ctx := context.Background()
	if err := upsertAs(s, nodeA, "wrong", reg("r1", "alloc-8d3c", 8080)); ErrorCode(err) != 403 {
		t.Fatalf("wrong secret: %v (code %d), want 403", err, ErrorCode(err))
	}
	err := upsertAs(s, nodeA, "sa", reg("r1", "alloc-9e4d", 8080))
	if ErrorCode(err) != 400 || !strings.Contains(err.Error(), "Services[0].AllocID") {
		t.Fatalf("another node's alloc: %v, want a 400 naming Services[0].AllocID", err)
	}
	if err := upsertAs(s, nodeA, "sa", &structs.ServiceRegistration{ID: "x", AllocID: "alloc-8d3c"}); ErrorCode(err) != 400 || !strings.Contains(err.Error(), "ServiceName") {
		t.Fatalf("no name: %v", err)
	}
	if err := upsertAs(s, nodeA, "sa", reg("r1", "alloc-8d3c", 8080, "b", "a")); err != nil {
		t.Fatal(err)
	}
	if err := upsertAs(s, nodeB, "sb", reg("r2", "alloc-9e4d", 9090, "c", "a")); err != nil {
		t.Fatal(err)
	}
	got, err := ServiceRegistrationGetService.Call(ctx, s, &structs.ServiceRegistrationByNameRequest{ServiceName: "web"})
	if err != nil || len(got.Services) != 2 {
		t.Fatalf("GetService: %v, %d", err, len(got.Services))
	}
	r1 := got.Services[0]
	if r1.NodeID != nodeA || r1.Datacenter != "dc1" || r1.JobID != "web" || r1.Namespace != "default" || r1.Port != 8080 {
		t.Fatalf("server-side fields not filled: %+v", r1)
	}
	list, err := ServiceRegistrationList.Call(ctx, s, &structs.ServiceRegistrationListRequest{})
	if err != nil || len(list.Services) != 1 || len(list.Services[0].Services) != 1 {
		t.Fatalf("List: %v %+v", err, list)
	}
	if tags := list.Services[0].Services[0].Tags; strings.Join(tags, ",") != "a,b,c" {
		t.Fatalf("tags %v, want the sorted union a,b,c", tags)
	}
}

func TestServiceRegistrationGetService_ChooseIsStableRendezvous(t *testing.T) {
	s := catalogFixture(t)
	ctx := context.Background()
	var regs []*structs.ServiceRegistration
	for _, id := range []string{"r1", "r2", "r3", "r4"} {
		regs = append(regs, reg(id, "alloc-8d3c", 8000))
	}
	if err := upsertAs(s, nodeA, "sa", regs...); err != nil {
		t.Fatal(err)
	}
	pick := func(choose string) []string {
		t.Helper()
		out, err := ServiceRegistrationGetService.Call(ctx, s, &structs.ServiceRegistrationByNameRequest{ServiceName: "web", Choose: choose})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range out.Services {
			ids = append(ids, r.ID)
		}
		return ids
	}
	first := pick("2|caller-1")
	if len(first) != 2 || strings.Join(pick("2|caller-1"), ",") != strings.Join(first, ",") {
		t.Fatalf("choose 2 for one key: %v then %v", first, pick("2|caller-1"))
	}
	// Removing an instance that was not picked leaves the pick alone.
	var other string
	for _, id := range []string{"r1", "r2", "r3", "r4"} {
		if id != first[0] && id != first[1] {
			other = id
		}
	}
	if _, err := ServiceRegistrationDeleteByID.Call(ctx, s, &structs.ServiceRegistrationDeleteByIDRequest{IDs: []string{other}, ServiceName: "web"}); err != nil {
		t.Fatal(err)
	}
	if got := pick("2|caller-1"); strings.Join(got, ",") != strings.Join(first, ",") {
		t.Fatalf("pick moved from %v to %v when an unpicked instance left", first, got)
	}
	for _, bad := range []string{"x", "0|k", "2|", "-1|k"} {
		_, err := ServiceRegistrationGetService.Call(ctx, s, &structs.ServiceRegistrationByNameRequest{ServiceName: "web", Choose: bad})
		if ErrorCode(err) != 400 || !strings.Contains(err.Error(), "choose") {
			t.Errorf("choose=%q: %v, want a 400 naming choose", bad, err)
		}
	}
	if _, err := ServiceRegistrationDeleteByID.Call(ctx, s, &structs.ServiceRegistrationDeleteByIDRequest{IDs: []string{"nope"}}); ErrorCode(err) != 404 {
		t.Fatalf("delete unknown: %v, want 404", err)
	}
}

// A node marked down loses its registrations in the status change's own
// raft entry, and a blocked reader wakes with the shorter list.
func TestServiceRegistrations_NodeDownWakesBlockedReader(t *testing.T) {
	s := catalogFixture(t)
	if err := upsertAs(s, nodeA, "sa", reg("r1", "alloc-8d3c", 8080)); err != nil {
		t.Fatal(err)
	}
	if err := upsertAs(s, nodeB, "sb", reg("r2", "alloc-9e4d", 9090)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, _ := ServiceRegistrationGetService.Call(ctx, s, &structs.ServiceRegistrationByNameRequest{ServiceName: "web"})
	done := make(chan *structs.ServiceRegistrationsResponse, 1)
	go func() {
		out, _ := ServiceRegistrationGetService.Call(ctx, s, &structs.ServiceRegistrationByNameRequest{ServiceName: "web",
			QueryOptions: structs.QueryOptions{MinQueryIndex: first.Index, MaxQueryTime: 10 * time.Second}})
		done <- out
	}()
	written, err := (&NodeEndpoint{srv: s}).setStatus(nodeA, structs.NodeStatusDown)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case out := <-done:
		if len(out.Services) != 1 || out.Services[0].NodeID != nodeB || out.Index != written.Index {
			t.Fatalf("after node down: %+v at %d, want r2 alone at the status index %d", out.Services, out.Index, written.Index)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("blocked reader not woken by the node going down")
	}
}

func TestCoreGC_DeletesOrphanedRegistrations(t *testing.T) {
	s := catalogFixture(t)
	if err := upsertAs(s, nodeA, "sa", reg("r1", "alloc-8d3c", 8080)); err != nil {
		t.Fatal(err)
	}
	if err := upsertAs(s, nodeB, "sb", reg("r2", "alloc-9e4d", 9090)); err != nil {
		t.Fatal(err)
	}
	// alloc-8d3c stops on its client without deregistering (a lost delete).
	if _, err := s.raftApply(context.Background(), structs.AllocClientUpdateRequestType, &structs.AllocUpdateRequest{Allocs: []*structs.Allocation{{
		ID: "alloc-8d3c", NodeID: nodeA, ClientStatus: structs.AllocClientStatusComplete,
	}}}); err != nil {
		t.Fatal(err)
	}
	// A force-gc core eval runs every collection now, the catalog's too.
	core := s.leader.CoreScheduler()(slog.New(slog.NewTextHandler(io.Discard, nil)), s.State().Snapshot(), nil)
	if err := core.Process(&structs.Evaluation{ID: "core-1", Namespace: structs.DefaultNamespace, Type: structs.JobTypeCore,
		JobID: leader.CoreJobForceGC, Status: structs.EvalStatusPending}); err != nil {
		t.Fatal(err)
	}
	left, _ := s.State().ServiceRegistrations(nil, "*")
	if len(left) != 1 || left[0].ID != "r2" {
		t.Fatalf("after GC: %+v, want r2 alone", left)
	}
}
