package state

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// A rekey batch re-seals only the variables still as they were read:
// one written since (or deleted) keeps what its write stored.
func TestRekeyVariables_SkipsWhatChanged(t *testing.T) {
	s := newStore(t)
	set := func(index uint64, path, data string) {
		must(t, s.ApplyVariable(index, &structs.VariableApplyRequest{Op: structs.VarOpSet,
			Var: &structs.VariableEncrypted{VariableMetadata: structs.VariableMetadata{Namespace: "default", Path: path},
				Data: []byte(data), KeyID: "old"}}))
	}
	set(10, "same", "a")
	set(11, "changed", "b")
	set(12, "gone", "c")
	set(13, "changed", "b2") // written after the rekeyer read it at 11
	must(t, s.ApplyVariable(14, &structs.VariableApplyRequest{Op: structs.VarOpDelete,
		Var: &structs.VariableEncrypted{VariableMetadata: structs.VariableMetadata{Namespace: "default", Path: "gone"}}}))
	resealed := func(path string, read uint64) *structs.VariableEncrypted {
		return &structs.VariableEncrypted{VariableMetadata: structs.VariableMetadata{Namespace: "default", Path: path, ModifyIndex: read},
			Data: []byte("new-" + path), KeyID: "new"}
	}
	must(t, s.RekeyVariables(20, []*structs.VariableEncrypted{resealed("same", 10), resealed("changed", 11), resealed("gone", 12)}))

	cases := []struct {
		path, data, key string
		modify          uint64
	}{
		{"same", "new-same", "new", 20},
		{"changed", "b2", "old", 13},
	}
	for _, tc := range cases {
		v, _ := s.VariableByPath(nil, "default", tc.path)
		if v == nil || string(v.Data) != tc.data || v.KeyID != tc.key || v.ModifyIndex != tc.modify || v.CreateIndex == 0 {
			t.Errorf("%s: %+v", tc.path, v)
		}
	}
	if v, _ := s.VariableByPath(nil, "default", "gone"); v != nil {
		t.Errorf("a deleted variable came back: %+v", v)
	}
}

func TestSetRootKeyStates(t *testing.T) {
	s := newStore(t)
	must(t, s.UpsertRootKey(1, &structs.RootKey{KeyID: "a", State: structs.RootKeyStateActive}, true))
	must(t, s.UpsertRootKey(2, &structs.RootKey{KeyID: "b", State: structs.RootKeyStateActive}, true))
	must(t, s.SetRootKeyStates(3, []string{"a", "missing"}, structs.RootKeyStateRekeying))
	a, _ := s.RootKeyByID(nil, "a")
	b, _ := s.RootKeyByID(nil, "b")
	if a.State != structs.RootKeyStateRekeying || a.ModifyIndex != 3 || a.CreateIndex != 1 || b.State != structs.RootKeyStateActive {
		t.Fatalf("a %+v, b %+v", a, b)
	}
}
