package server

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// pullForm is one of the two forms of a client's pull: the full one of
// earlier clients (Node.GetClientAllocs) and the index-only one.
type pullForm struct {
	name  string
	frame string // the handler's frame in a parked goroutine's stack
	pull  func(context.Context, *Server, *structs.NodeAllocsArgs) (uint64, map[string]uint64, error)
}

var pullForms = []pullForm{
	{"full", "server.(*NodeEndpoint).GetClientAllocs(", func(ctx context.Context, s *Server, args *structs.NodeAllocsArgs) (uint64, map[string]uint64, error) {
		r, err := NodeGetClientAllocs.Call(ctx, s, args)
		if err != nil {
			return 0, nil, err
		}
		ids := map[string]uint64{}
		for _, a := range r.Allocs {
			ids[a.ID] = a.AllocModifyIndex
		}
		return r.Index, ids, nil
	}},
	{"indexes", "server.(*NodeEndpoint).GetClientAllocIndexes(", func(ctx context.Context, s *Server, args *structs.NodeAllocsArgs) (uint64, map[string]uint64, error) {
		r, err := NodeGetClientAllocIndexes.Call(ctx, s, args)
		if err != nil {
			return 0, nil, err
		}
		return r.Index, r.Allocs, nil
	}},
}

type pullResult struct {
	index  uint64
	allocs map[string]uint64
	err    error
}

// startPull runs a blocking pull of the node's allocs past minIndex and
// returns once it is parked in its wait, or has answered (the channel
// then holds the answer).
func (an *allocNode) startPull(t *testing.T, form pullForm, minIndex uint64) chan pullResult {
	t.Helper()
	done := make(chan pullResult, 1)
	go func() {
		index, allocs, err := form.pull(t.Context(), an.srv, &structs.NodeAllocsArgs{NodeID: an.node.ID, SecretID: an.node.SecretID,
			QueryOptions: structs.QueryOptions{MinQueryIndex: minIndex, MaxQueryTime: time.Minute}})
		done <- pullResult{index, allocs, err}
	}()
	testutil.WaitFor(t, 10*time.Second, "the pull to wait or answer", func() bool {
		return len(done) > 0 || testutil.Parked(form.frame, "server.(*Server).BlockingQuery(")
	})
	return done
}

func awaitPull(t *testing.T, done chan pullResult, what string) pullResult {
	t.Helper()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r
	case <-time.After(10 * time.Second):
		t.Fatalf("the node's pull did not answer %s", what)
		return pullResult{}
	}
}

// TestGetClientAllocs_OnlyTheNodesOwnAllocsAnswerItsPull: a client's next
// pull waits while other nodes' allocs change, and answers when one of its
// node's allocs changes or is garbage collected. Before, the pull answered
// at the alloc table's index, so a change to any alloc in the cluster
// between two pulls answered the next one at once (with every alloc of the
// node): the full subtest failed on that code.
func TestGetClientAllocs_OnlyTheNodesOwnAllocsAnswerItsPull(t *testing.T) {
	for _, form := range pullForms {
		t.Run(form.name, func(t *testing.T) {
			an := newAllocNode(t, 20, 2)
			first, _, err := form.pull(t.Context(), an.srv, &structs.NodeAllocsArgs{NodeID: an.node.ID, SecretID: an.node.SecretID})
			if err != nil {
				t.Fatal(err)
			}
			// Another node's alloc changes between the client's pulls.
			an.update(t, "ffffffff-0000-4000-8000-000000000000", stopAlloc)
			done := an.startPull(t, form, first)
			if len(done) > 0 {
				r := <-done
				t.Fatalf("another node's alloc change answered the pull: index %d (was %d), %d allocs, %v", r.index, first, len(r.allocs), r.err)
			}
			// One of the node's own allocs changes: the pull answers.
			changed := an.update(t, allocID(1), stopAlloc)
			r := awaitPull(t, done, "its own alloc's change")
			if r.index <= first || r.allocs[changed.ID] != changed.AllocModifyIndex || len(r.allocs) != 20 {
				t.Fatalf("after the node's change: index %d (was %d), alloc index %d (want %d), %d allocs",
					r.index, first, r.allocs[changed.ID], changed.AllocModifyIndex, len(r.allocs))
			}
			// A client's own report of its alloc does not answer the pull
			// (index-only form: it does not change what the client must do).
			if form.name == "indexes" {
				upd := changed.Copy()
				upd.ClientStatus = structs.AllocClientStatusComplete
				if _, err := NodeUpdateAlloc.Call(t.Context(), an.srv, &structs.AllocClientUpdateArgs{NodeID: an.node.ID, SecretID: an.node.SecretID,
					Allocs: []*structs.Allocation{upd}}); err != nil {
					t.Fatal(err)
				}
			}
			// A garbage collected alloc moves no remaining alloc's index,
			// and still answers the pull.
			done = an.startPull(t, form, r.index)
			if len(done) > 0 {
				got := <-done
				t.Fatalf("the pull answered before the collection: index %d (was %d), %v", got.index, r.index, got.err)
			}
			if _, err := an.srv.raftApply(t.Context(), structs.EvalDeleteRequestType, &structs.EvalDeleteRequest{Allocs: []string{allocID(19)}}); err != nil {
				t.Fatal(err)
			}
			gc := awaitPull(t, done, "the collection of one of its allocs")
			if _, listed := gc.allocs[allocID(19)]; gc.index <= r.index || listed || len(gc.allocs) != 19 {
				t.Fatalf("after the collection: index %d (was %d), %d allocs, collected one listed: %v", gc.index, r.index, len(gc.allocs), listed)
			}
		})
	}
}

// TestGetClientAllocIndexes_OneChangeFetchesOnlyThatAlloc: on a node with
// many allocs, most of them finished, a client's pull after one alloc
// changed lists every alloc by index only, and the fetch that follows
// carries that one alloc, with its job.
func TestGetClientAllocIndexes_OneChangeFetchesOnlyThatAlloc(t *testing.T) {
	an := newAllocNode(t, 500, 5)
	ctx := t.Context()
	args := &structs.NodeAllocsArgs{NodeID: an.node.ID, SecretID: an.node.SecretID}
	prev, err := NodeGetClientAllocIndexes.Call(ctx, an.srv, args)
	if err != nil || len(prev.Allocs) != 500 {
		t.Fatalf("first pull: %v, %d allocs", err, len(prev.Allocs))
	}
	changed := an.update(t, allocID(3), stopAlloc)
	args.MinQueryIndex = prev.Index
	cur, err := NodeGetClientAllocIndexes.Call(ctx, an.srv, args)
	if err != nil || cur.Index <= prev.Index {
		t.Fatalf("pull after the change: %v, index %d (was %d)", err, cur.Index, prev.Index)
	}
	ids := changedIDs(prev.Allocs, cur.Allocs)
	if len(ids) != 1 || ids[0] != changed.ID {
		t.Fatalf("allocs to fetch = %v, want only %s", ids, changed.ID)
	}
	got, err := AllocGetAllocs.Call(ctx, an.srv, &structs.AllocsGetArgs{NodeID: an.node.ID, SecretID: an.node.SecretID, AllocIDs: ids,
		QueryOptions: structs.QueryOptions{MinQueryIndex: cur.Allocs[changed.ID] - 1}})
	if err != nil || len(got.Allocs) != 1 {
		t.Fatalf("fetch: %v, %d allocs", err, len(got.Allocs))
	}
	if a := got.Allocs[0]; a.ID != changed.ID || a.DesiredStatus != structs.AllocDesiredStatusStop || a.Job == nil {
		t.Fatalf("fetched %+v", a)
	}
	full, err := NodeGetClientAllocs.Call(ctx, an.srv, args)
	if err != nil {
		t.Fatal(err)
	}
	if pulled, before := wireSize(t, cur)+wireSize(t, got), wireSize(t, full); pulled*10 > before {
		t.Fatalf("the pull and fetch carried %d bytes, the full pull %d", pulled, before)
	}
}

// TestAllocGetAllocs_OnlyTheNodesOwnAllocs: the fetch authenticates the
// node by its secret, refuses another node's alloc (naming it) and leaves
// out an alloc the servers no longer hold.
func TestAllocGetAllocs_OnlyTheNodesOwnAllocs(t *testing.T) {
	an := newAllocNode(t, 3, 3)
	ctx := t.Context()
	get := func(secret string, ids ...string) (*structs.AllocsGetResponse, error) {
		return AllocGetAllocs.Call(ctx, an.srv, &structs.AllocsGetArgs{NodeID: an.node.ID, SecretID: secret, AllocIDs: ids})
	}
	var coded *CodedError
	if _, err := get("wrong", allocID(0)); !errors.As(err, &coded) || coded.Code != 403 {
		t.Fatalf("wrong secret: %v", err)
	}
	other := "ffffffff-0000-4000-8000-000000000000"
	if _, err := get(an.node.SecretID, allocID(0), other); !errors.As(err, &coded) || coded.Code != 403 || !strings.Contains(err.Error(), other) {
		t.Fatalf("another node's alloc: %v", err)
	}
	got, err := get(an.node.SecretID, allocID(0), "00000000-0000-4000-8000-00000000dead", allocID(2))
	if err != nil || len(got.Allocs) != 2 || got.Allocs[0].ID != allocID(0) || got.Allocs[1].ID != allocID(2) {
		t.Fatalf("own allocs and an unknown one: %v %+v", err, got)
	}
}
