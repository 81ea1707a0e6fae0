package state

import (
	"bytes"
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// The typed alloc indexers give StringFieldIndex's keys for every value,
// empty ones included, and the same argument and prefix keys.
func TestTypedStringMatchesStringFieldIndex(t *testing.T) {
	values := []string{"", "a", "web", "default", "0b3c-uuid", "x\x00y", "ünï"}
	for _, ix := range []typedString[structs.Allocation]{ixAllocID, ixAllocNamespace, ixAllocJobID, ixAllocNodeID, ixAllocDeploymentID} {
		ref := &memdb.StringFieldIndex{Field: ix.field}
		for _, v := range values {
			a := &structs.Allocation{ID: v, Namespace: v, JobID: v, NodeID: v, DeploymentID: v}
			ok1, k1, err1 := ref.FromObject(a)
			ok2, k2, err2 := ix.FromObject(a)
			if ok1 != ok2 || !bytes.Equal(k1, k2) || (err1 == nil) != (err2 == nil) {
				t.Errorf("%s %q: FromObject (%v %q %v), StringFieldIndex (%v %q %v)", ix.field, v, ok2, k2, err2, ok1, k1, err1)
			}
			a1, _ := ref.FromArgs(v)
			a2, _ := ix.FromArgs(v)
			p1, _ := ref.PrefixFromArgs(v)
			p2, _ := ix.PrefixFromArgs(v)
			if !bytes.Equal(a1, a2) || !bytes.Equal(p1, p2) {
				t.Errorf("%s %q: args %q/%q, want %q/%q", ix.field, v, a2, p2, a1, p1)
			}
		}
		if _, _, err := ix.FromObject(&structs.Evaluation{}); err == nil {
			t.Errorf("%s: an eval was indexed as an alloc", ix.field)
		}
		if _, err := ix.FromArgs(1); err == nil {
			t.Errorf("%s: a non-string argument was accepted", ix.field)
		}
	}
}
