package state

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// typedIndexValues are the field values every typed indexer is checked on.
var typedIndexValues = []string{"", "a", "web", "default", "0b3c-uuid", "x\x00y", "ünï"}

// checkTypedString holds a typed indexer to StringFieldIndex over the same
// field: the same keys for every value, empty ones included, and the same
// argument and prefix keys. mk returns an object whose every indexed
// string field holds v.
func checkTypedString[T any](t *testing.T, ix typedString[T], mk func(v string) *T) {
	t.Helper()
	ref := &memdb.StringFieldIndex{Field: ix.field}
	for _, v := range typedIndexValues {
		o := mk(v)
		ok1, k1, err1 := ref.FromObject(o)
		ok2, k2, err2 := ix.FromObject(o)
		if ok1 != ok2 || !bytes.Equal(k1, k2) || (err1 == nil) != (err2 == nil) {
			t.Errorf("%T %s %q: FromObject (%v %q %v), StringFieldIndex (%v %q %v)", o, ix.field, v, ok2, k2, err2, ok1, k1, err1)
		}
		a1, _ := ref.FromArgs(v)
		a2, _ := ix.FromArgs(v)
		p1, _ := ref.PrefixFromArgs(v)
		p2, _ := ix.PrefixFromArgs(v)
		if !bytes.Equal(a1, a2) || !bytes.Equal(p1, p2) {
			t.Errorf("%T %s %q: args %q/%q, want %q/%q", o, ix.field, v, a2, p2, a1, p1)
		}
	}
	if _, _, err := ix.FromObject(&struct{}{}); err == nil {
		t.Errorf("%s: an object of another type was indexed", ix.field)
	}
	if _, err := ix.FromArgs(1); err == nil {
		t.Errorf("%s: a non-string argument was accepted", ix.field)
	}
	if _, err := ix.FromArgs("a", "b"); err == nil {
		t.Errorf("%s: two arguments were accepted", ix.field)
	}
}

func TestTypedStringMatchesStringFieldIndex(t *testing.T) {
	alloc := func(v string) *structs.Allocation {
		return &structs.Allocation{ID: v, Namespace: v, JobID: v, NodeID: v, DeploymentID: v}
	}
	for _, ix := range []typedString[structs.Allocation]{ixAllocID, ixAllocNamespace, ixAllocJobID, ixAllocNodeID, ixAllocDeploymentID} {
		checkTypedString(t, ix, alloc)
	}
	eval := func(v string) *structs.Evaluation {
		return &structs.Evaluation{ID: v, Namespace: v, JobID: v, Status: v}
	}
	for _, ix := range []typedString[structs.Evaluation]{ixEvalID, ixEvalNamespace, ixEvalJobID, ixEvalStatus} {
		checkTypedString(t, ix, eval)
	}
	job := func(v string) *structs.Job { return &structs.Job{ID: v, Namespace: v, Status: v, Type: v} }
	for _, ix := range []typedString[structs.Job]{ixJobNamespace, ixJobID, ixJobType} {
		checkTypedString(t, ix, job)
	}
	node := func(v string) *structs.Node { return &structs.Node{ID: v, SecretID: v} }
	for _, ix := range []typedString[structs.Node]{ixNodeID, ixNodeSecretID} {
		checkTypedString(t, ix, node)
	}
	checkTypedString(t, ixIndexKey, func(v string) *IndexEntry { return &IndexEntry{Key: v} })
	checkTypedString(t, ixUsageNodeID, func(v string) *structs.NodeUsage { return &structs.NodeUsage{NodeID: v} })
}

// The live eval status index keeps StringFieldIndex's keys for live evals
// and leaves terminal ones out.
func TestLiveEvalStatusIndex(t *testing.T) {
	ix := liveEvalStatusIndex{ixEvalStatus}
	for _, status := range []string{"", structs.EvalStatusPending, structs.EvalStatusBlocked, structs.EvalStatusComplete,
		structs.EvalStatusFailed, structs.EvalStatusCanceled} {
		e := &structs.Evaluation{Status: status}
		ok, key, err := ix.FromObject(e)
		wantOK, wantKey, _ := (&memdb.StringFieldIndex{Field: "Status"}).FromObject(e)
		if e.TerminalStatus() {
			wantOK, wantKey = false, nil
		}
		if err != nil || ok != wantOK || !bytes.Equal(key, wantKey) {
			t.Errorf("status %q: (%v %q %v), want (%v %q)", status, ok, key, err, wantOK, wantKey)
		}
	}
}

// node_terminal gives a terminal alloc on a node the key the former
// (NodeID, terminal) compound index gave it, and leaves out live allocs
// and allocs without a node; its argument key is the compound's for
// (node, true).
func TestNodeTerminalIndexMatchesCompound(t *testing.T) {
	terminal := &memdb.ConditionalIndex{Conditional: func(obj any) (bool, error) {
		return obj.(*structs.Allocation).TerminalStatus(), nil
	}}
	compound := &memdb.CompoundIndex{Indexes: []memdb.Indexer{&memdb.StringFieldIndex{Field: "NodeID"}, terminal}}
	for _, node := range typedIndexValues {
		for _, client := range []string{structs.AllocClientStatusPending, structs.AllocClientStatusRunning,
			structs.AllocClientStatusComplete, structs.AllocClientStatusFailed, structs.AllocClientStatusLost} {
			for _, desired := range []string{structs.AllocDesiredStatusRun, structs.AllocDesiredStatusStop, structs.AllocDesiredStatusEvict} {
				a := &structs.Allocation{NodeID: node, ClientStatus: client, DesiredStatus: desired}
				ok, key, err := ixAllocNodeTerminal.FromObject(a)
				wantOK, wantKey, _ := compound.FromObject(a)
				if !a.TerminalStatus() {
					wantOK, wantKey = false, nil
				}
				if err != nil || ok != wantOK || !bytes.Equal(key, wantKey) {
					t.Errorf("node %q %s/%s: (%v %q %v), want (%v %q)", node, client, desired, ok, key, err, wantOK, wantKey)
				}
			}
		}
		args, err := ixAllocNodeTerminal.FromArgs(node)
		want, _ := compound.FromArgs(node, true)
		if err != nil || !bytes.Equal(args, want) {
			t.Errorf("node %q: args %q %v, want %q", node, args, err, want)
		}
	}
	if _, _, err := ixAllocNodeTerminal.FromObject(&structs.Evaluation{}); err == nil {
		t.Error("an eval was indexed as an alloc")
	}
	if _, err := ixAllocNodeTerminal.FromArgs("n1", true); err == nil {
		t.Error("two arguments were accepted")
	}
}

// The (namespace, job) pairs give the keys, errors and prefixes of the
// CompoundIndex of the same two typedStrings they replace.
func TestTypedPairMatchesCompound(t *testing.T) {
	checkPair(t, ixAllocJob, func(ns, id string) any { return &structs.Allocation{Namespace: ns, JobID: id} })
	checkPair(t, ixJobKey, func(ns, id string) any { return &structs.Job{Namespace: ns, ID: id} })
}

func checkPair[T any](t *testing.T, p typedPair[T], obj func(ns, id string) any) {
	t.Helper()
	compound := &memdb.CompoundIndex{Indexes: []memdb.Indexer{p.first, p.second}}
	same := func(what string, gotKey []byte, gotErr error, wantKey []byte, wantErr error) {
		t.Helper()
		if !bytes.Equal(gotKey, wantKey) || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s %s: (%q, %v), want (%q, %v)", p.first.field, what, gotKey, gotErr, wantKey, wantErr)
		}
	}
	for _, a := range typedIndexValues {
		for _, b := range typedIndexValues {
			ok, key, err := p.FromObject(obj(a, b))
			wantOK, wantKey, wantErr := compound.FromObject(obj(a, b))
			if ok != wantOK {
				t.Errorf("%q/%q: indexed %v, want %v", a, b, ok, wantOK)
			}
			same(fmt.Sprintf("object %q/%q", a, b), key, err, wantKey, wantErr)
			key, err = p.FromArgs(a, b)
			wantKey, wantErr = compound.FromArgs(a, b)
			same(fmt.Sprintf("args %q/%q", a, b), key, err, wantKey, wantErr)
			key, err = p.PrefixFromArgs(a, b)
			wantKey, wantErr = compound.PrefixFromArgs(a, b)
			same(fmt.Sprintf("prefix %q/%q", a, b), key, err, wantKey, wantErr)
		}
		key, err := p.PrefixFromArgs(a)
		wantKey, wantErr := compound.PrefixFromArgs(a)
		same(fmt.Sprintf("prefix %q", a), key, err, wantKey, wantErr)
	}
	for _, args := range [][]any{{"a"}, {"a", "b", "c"}, {"a", 1}, {1, "b"}, {}} {
		key, err := p.FromArgs(args...)
		wantKey, wantErr := compound.FromArgs(args...)
		same(fmt.Sprintf("args %v", args), key, err, wantKey, wantErr)
	}
	ok, key, err := p.FromObject(&IndexEntry{Key: "x"})
	wantOK, wantKey, wantErr := compound.FromObject(&IndexEntry{Key: "x"})
	if ok != wantOK {
		t.Errorf("another type: indexed %v, want %v", ok, wantOK)
	}
	same("another type", key, err, wantKey, wantErr)
}

// job_version's keys are those of the reflective CompoundIndexes they
// replace.
func TestJobVersionIndexesMatchCompound(t *testing.T) {
	nsAndID := &memdb.CompoundIndex{Indexes: []memdb.Indexer{&memdb.StringFieldIndex{Field: "Namespace"}, &memdb.StringFieldIndex{Field: "ID"}}}
	for _, ns := range typedIndexValues {
		for _, id := range typedIndexValues {
			for _, v := range []uint64{0, 1, 255, 256, 1 << 40, math.MaxUint64} {
				j := &structs.Job{Namespace: ns, ID: id, Version: v}
				ok, key, err := ixJobVersionID.FromObject(j)
				wantOK, wantKey, wantErr := jobVersionCompound.FromObject(j)
				if ok != wantOK || !bytes.Equal(key, wantKey) || (err == nil) != (wantErr == nil) {
					t.Errorf("id of %q/%q@%d: (%v %q %v), want (%v %q %v)", ns, id, v, ok, key, err, wantOK, wantKey, wantErr)
				}
				args, err := ixJobVersionID.FromArgs(ns, id, v)
				wantArgs, wantErr := jobVersionCompound.FromArgs(ns, id, v)
				if !bytes.Equal(args, wantArgs) || (err == nil) != (wantErr == nil) {
					t.Errorf("id args %q/%q@%d: (%q %v), want (%q %v)", ns, id, v, args, err, wantArgs, wantErr)
				}
			}
			j := &structs.Job{Namespace: ns, ID: id}
			ok, key, _ := ixJobVersionJob.FromObject(j)
			wantOK, wantKey, _ := nsAndID.FromObject(j)
			if ok != wantOK || !bytes.Equal(key, wantKey) {
				t.Errorf("job of %q/%q: (%v %q), want (%v %q)", ns, id, ok, key, wantOK, wantKey)
			}
			args, _ := ixJobVersionJob.FromArgs(ns, id)
			wantArgs, _ := nsAndID.FromArgs(ns, id)
			if !bytes.Equal(args, wantArgs) {
				t.Errorf("job args %q/%q: %q, want %q", ns, id, args, wantArgs)
			}
		}
	}
	for _, args := range [][]any{{"a", "b"}, {"a", "b", 1}, {"a", "b", uint32(1)}, {"a", 1, uint64(1)}} {
		got, err := ixJobVersionID.FromArgs(args...)
		want, wantErr := jobVersionCompound.FromArgs(args...)
		if !bytes.Equal(got, want) || (err == nil) != (wantErr == nil) {
			t.Errorf("id args %v: (%q %v), want (%q %v)", args, got, err, want, wantErr)
		}
	}
	for _, args := range [][]any{{"a"}, {"a", "b"}} {
		got, err := ixJobVersionID.PrefixFromArgs(args...)
		want, wantErr := jobVersionCompound.PrefixFromArgs(args...)
		if !bytes.Equal(got, want) || (err == nil) != (wantErr == nil) {
			t.Errorf("id prefix %v: (%q %v), want (%q %v)", args, got, err, want, wantErr)
		}
	}
}

// The evals' (namespace, job, terminal) keys are evalJobCompound's.
func TestEvalJobIndexMatchesCompound(t *testing.T) {
	statuses := []string{"", structs.EvalStatusPending, structs.EvalStatusBlocked, structs.EvalStatusComplete,
		structs.EvalStatusFailed, structs.EvalStatusCanceled}
	same := func(what string, key []byte, err error, wantKey []byte, wantErr error) {
		t.Helper()
		if !bytes.Equal(key, wantKey) || (err == nil) != (wantErr == nil) {
			t.Errorf("%s: (%q %v), want (%q %v)", what, key, err, wantKey, wantErr)
		}
	}
	for _, ns := range typedIndexValues {
		for _, job := range typedIndexValues {
			for _, status := range statuses {
				e := &structs.Evaluation{Namespace: ns, JobID: job, Status: status}
				ok, key, err := ixEvalJob.FromObject(e)
				wantOK, wantKey, wantErr := evalJobCompound.FromObject(e)
				if ok != wantOK {
					t.Errorf("%q/%q %s: indexed %v, want %v", ns, job, status, ok, wantOK)
				}
				same(fmt.Sprintf("object %q/%q %s", ns, job, status), key, err, wantKey, wantErr)
			}
			for _, terminal := range []bool{false, true} {
				key, err := ixEvalJob.FromArgs(ns, job, terminal)
				wantKey, wantErr := evalJobCompound.FromArgs(ns, job, terminal)
				same(fmt.Sprintf("args %q/%q %v", ns, job, terminal), key, err, wantKey, wantErr)
			}
			key, err := ixEvalJob.PrefixFromArgs(ns, job)
			wantKey, wantErr := evalJobCompound.PrefixFromArgs(ns, job)
			same(fmt.Sprintf("prefix %q/%q", ns, job), key, err, wantKey, wantErr)
		}
	}
	for _, args := range [][]any{{"a", "b"}, {"a", "b", 1}, {"a", 1, true}, {"a", "b", true, 1}} {
		key, err := ixEvalJob.FromArgs(args...)
		wantKey, wantErr := evalJobCompound.FromArgs(args...)
		same(fmt.Sprintf("args %v", args), key, err, wantKey, wantErr)
	}
	ok, key, err := ixEvalJob.FromObject(&structs.Job{ID: "x"})
	wantOK, wantKey, wantErr := evalJobCompound.FromObject(&structs.Job{ID: "x"})
	if ok != wantOK {
		t.Errorf("another type: indexed %v, want %v", ok, wantOK)
	}
	same("another type", key, err, wantKey, wantErr)
}
