package server

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/structs"
)

// Items are sealed before raft: the state store (and so raft entries and
// snapshots) never holds them in the clear, and a sealed value cannot be
// moved to another path.
func TestVariables_StoredSealed(t *testing.T) {
	s := testServer(t, "")
	waitFirstKey(t, s) // calling EnsureRootKey here could race leadership's and make two
	ctx := context.Background()
	_, err := VariablesApply.Call(ctx, s, &structs.VariablesApplyArgs{Op: structs.VarOpSet,
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
	if _, err := s.Auth().Open(stored.Data, stored.KeyID, auth.VariableAAD("default", "app/other")); err == nil {
		t.Fatal("ciphertext opened under another path")
	}
}

// A lease past its TTL is no longer shown, but its lock delay still keeps
// another holder out; after the delay a new holder gets it.
func TestVariables_LeaseExpiryOnTheServerClock(t *testing.T) {
	p := newPipeline(t, 1, nil)
	s, ctx := p.srv, context.Background()
	acquire := func() (*structs.VariablesApplyResponse, error) {
		return VariablesApply.Call(ctx, s, &structs.VariablesApplyArgs{Op: structs.VarOpLockAcquire,
			Var: &structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Path: "locks/a",
				Lock: &structs.VariableLock{TTL: 10 * time.Second, LockDelay: 5 * time.Second}}}})
	}
	first, err := acquire()
	if err != nil || first.Output == nil || first.Output.Lock == nil {
		t.Fatalf("acquire: %v %+v", err, first)
	}
	read := func() *structs.VariableDecrypted {
		r, err := VariablesRead.Call(ctx, s, &structs.VariablesReadRequest{Path: "locks/a"})
		if err != nil {
			t.Fatal(err)
		}
		return r.Data
	}
	p.clk.Advance(12 * time.Second)
	if v := read(); v.Lock != nil {
		t.Fatalf("expired lease still shown: %+v", v.Lock)
	}
	if again, err := acquire(); err != nil || again.Conflict == nil {
		t.Fatalf("acquire within the lock delay: %v %+v, want a conflict", err, again)
	}
	p.clk.Advance(5 * time.Second)
	if again, err := acquire(); err != nil || again.Conflict != nil || again.Output.Lock.ID == first.Output.Lock.ID {
		t.Fatalf("acquire after the delay: %v %+v", err, again)
	}
}
