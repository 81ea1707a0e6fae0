package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-msgpack/v2/codec"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// allocNode is a server whose node holds many historic allocs, most of
// them terminal, and another node with one alloc.
type allocNode struct {
	srv   *Server
	node  *structs.Node
	other *structs.Node
}

// allocID is the ID of the node's i-th alloc; allocs below live run.
func allocID(i int) string { return fmt.Sprintf("%08d-0000-4000-8000-000000000000", i) }

// newAllocNode writes n allocs on one node, all but live of them
// terminal, and an alloc of another node.
func newAllocNode(tb testing.TB, n, live int) *allocNode {
	tb.Helper()
	cfg := &Config{
		NodeName: "bench", DevMode: true, BootstrapExpect: 1, RaftAddr: "127.0.0.1:4647",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		RaftTimings: &RaftTimings{Heartbeat: 50 * time.Millisecond, Election: 50 * time.Millisecond,
			LeaderLease: 50 * time.Millisecond, Commit: 5 * time.Millisecond},
	}
	s, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Shutdown() })
	if err := s.WaitForLeader(10 * time.Second); err != nil {
		tb.Fatal(err)
	}
	node := clientNode(nodeA)
	if _, err := s.RegisterNode(node); err != nil {
		tb.Fatal(err)
	}
	other := clientNode(nodeB)
	if _, err := s.RegisterNode(other); err != nil {
		tb.Fatal(err)
	}
	job := mock.Job("web")
	job.Namespace = structs.DefaultNamespace
	var batch []*structs.Allocation
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if _, err := s.raftApply(context.Background(), structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Allocs: batch}); err != nil {
			tb.Fatal(err)
		}
		batch = nil
	}
	for i := range n {
		a := mock.Alloc(allocID(i), job, node.ID)
		if i >= live {
			a.DesiredStatus, a.ClientStatus = structs.AllocDesiredStatusStop, structs.AllocClientStatusComplete
		}
		batch = append(batch, a)
		if len(batch) == 500 {
			flush()
		}
	}
	batch = append(batch, mock.Alloc("ffffffff-0000-4000-8000-000000000000", job, other.ID))
	flush()
	return &allocNode{srv: s, node: node, other: other}
}

// update writes a copy of the stored alloc id changed by change, as a
// server write (a plan or an alloc stop) would.
func (an *allocNode) update(tb testing.TB, id string, change func(*structs.Allocation)) *structs.Allocation {
	tb.Helper()
	cur, err := an.srv.State().AllocByID(nil, id)
	if err != nil || cur == nil {
		tb.Fatalf("alloc %s: %v", id, err)
	}
	a := cur.Copy()
	change(a)
	if _, err := an.srv.raftApply(context.Background(), structs.AllocUpdateRequestType, &structs.AllocUpdateRequest{Allocs: []*structs.Allocation{a}}); err != nil {
		tb.Fatal(err)
	}
	a, _ = an.srv.State().AllocByID(nil, id)
	return a
}

func stopAlloc(a *structs.Allocation) { a.DesiredStatus = structs.AllocDesiredStatusStop }

// wireSize is the msgpack size of v as the RPC sends it.
func wireSize(tb testing.TB, v any) int {
	var buf []byte
	if err := codec.NewEncoderBytes(&buf, structs.StructArrayHandle).Encode(v); err != nil {
		tb.Fatal(err)
	}
	return len(buf)
}

// BenchmarkGetClientAllocs: one client pull on a node with 10,000
// historic allocs (10 live) after one of them changed: the handler and
// the msgpack encoding of what goes on the wire (wire-bytes/pull). "full"
// is the pull of earlier clients (every alloc with its job), "indexes"
// the pull of alloc indexes plus the fetch of the one changed alloc. On a
// shared 2-core machine, with fixtures.Job's small job (about 470 bytes
// an alloc): full 78-113 ms and 4,719,986 bytes, indexes 5.2-5.9 ms and
// 390,482 bytes. The indexes do not grow with the job: the 54 MiB pulls
// of issue 27 carried about 5.9 KB an alloc.
func BenchmarkGetClientAllocs(b *testing.B) {
	an := newAllocNode(b, 10_000, 10)
	ctx := context.Background()
	prev, err := NodeGetClientAllocIndexes.Call(ctx, an.srv, &structs.NodeAllocsArgs{NodeID: an.node.ID, SecretID: an.node.SecretID})
	if err != nil {
		b.Fatal(err)
	}
	before := prev.Index // the client's last pull
	an.update(b, allocID(0), stopAlloc)
	b.Run("full", func(b *testing.B) { // the old form: every alloc, with its job
		var size int
		for b.Loop() {
			resp, err := NodeGetClientAllocs.Call(ctx, an.srv, &structs.NodeAllocsArgs{NodeID: an.node.ID, SecretID: an.node.SecretID,
				QueryOptions: structs.QueryOptions{MinQueryIndex: before}})
			if err != nil || len(resp.Allocs) != 10_000 {
				b.Fatalf("pull: %v, %d allocs", err, len(resp.Allocs))
			}
			size = wireSize(b, resp)
		}
		b.ReportMetric(float64(size), "wire-bytes/pull")
	})
	b.Run("indexes", func(b *testing.B) { // the pull, then a fetch of what changed
		var size int
		for b.Loop() {
			resp, err := NodeGetClientAllocIndexes.Call(ctx, an.srv, &structs.NodeAllocsArgs{NodeID: an.node.ID, SecretID: an.node.SecretID,
				QueryOptions: structs.QueryOptions{MinQueryIndex: before}})
			if err != nil || len(resp.Allocs) != 10_000 {
				b.Fatalf("pull: %v, %d allocs", err, len(resp.Allocs))
			}
			ids := changedIDs(prev.Allocs, resp.Allocs)
			got, err := AllocGetAllocs.Call(ctx, an.srv, &structs.AllocsGetArgs{NodeID: an.node.ID, SecretID: an.node.SecretID, AllocIDs: ids})
			if err != nil || len(got.Allocs) != 1 {
				b.Fatalf("fetch %v: %v, %d allocs", ids, err, len(got.Allocs))
			}
			size = wireSize(b, resp) + wireSize(b, got)
		}
		b.ReportMetric(float64(size), "wire-bytes/pull")
	})
}

// changedIDs lists the allocs of cur whose index moved past prev's, as a
// client decides what to fetch.
func changedIDs(prev, cur map[string]uint64) []string {
	var ids []string
	for id, idx := range cur {
		if idx > prev[id] {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}
