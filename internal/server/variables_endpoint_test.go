package server

import (
	"bytes"
	"context"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// Items are sealed before raft: the state store (and so raft entries and
// snapshots) never holds them in the clear, and a sealed value cannot be
// moved to another path.
func TestVariables_StoredSealed(t *testing.T) {
	s := testServer(t, "")
	if err := s.ensureRootKey(); err != nil { // idempotent after leadership made one
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err := s.Variables.Apply(ctx, &structs.VariablesApplyArgs{Op: structs.VarOpSet,
		Var: &structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Path: "app/db"}, Items: map[string]string{"pass": "plaintext-secret"}}})
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := s.State().VariableByPath(nil, "default", "app/db")
	if stored == nil || len(stored.Data) == 0 || bytes.Contains(stored.Data, []byte("plaintext-secret")) {
		t.Fatalf("stored variable not sealed: %+v", stored)
	}
	keys, _ := s.State().RootKeys(nil)
	if len(keys) != 1 || stored.KeyID != keys[0].KeyID {
		t.Fatalf("keyring %+v, variable sealed with %s", keys, stored.KeyID)
	}
	if _, err := s.open(stored.Data, stored.KeyID, variableAAD("default", "app/other")); err == nil {
		t.Fatal("ciphertext opened under another path")
	}
}
