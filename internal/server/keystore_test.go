package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// waitFirstKey waits for the leader's first root key (made as leadership
// is established, after WaitForLeader may return).
func waitFirstKey(t *testing.T, s *Server) {
	t.Helper()
	testutil.WaitFor(t, 5*time.Second, "the leader's first root key", func() (bool, string) {
		k, _ := s.State().ActiveRootKey(nil)
		return k != nil, "none"
	})
}

func putVar(t *testing.T, s *Server, path, value string) {
	t.Helper()
	waitFirstKey(t, s)
	_, err := VariablesApply.Call(context.Background(), s, &structs.VariablesApplyArgs{Op: structs.VarOpSet,
		Var: &structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Path: path}, Items: map[string]string{"v": value}}})
	if err != nil {
		t.Fatalf("put %s: %v", path, err)
	}
}

func readVar(t *testing.T, s *Server, path string) string {
	t.Helper()
	r, err := VariablesRead.Call(context.Background(), s, &structs.VariablesReadRequest{Path: path})
	if err != nil || r.Data == nil {
		t.Fatalf("read %s: %v %+v", path, err, r)
	}
	return r.Data.Items["v"]
}

// snapshotBytes is an operator snapshot, uncompressed.
func snapshotBytes(t *testing.T, s *Server) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.WriteSnapshot(&buf); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// raftLogBytes is every entry's payload in the server's raft log.
func raftLogBytes(t *testing.T, s *Server) []byte {
	t.Helper()
	first, _ := s.cluster.LogStore().FirstIndex()
	last, _ := s.cluster.LogStore().LastIndex()
	var out []byte
	for i := first; i <= last && i > 0; i++ {
		var l raft.Log
		if err := s.cluster.LogStore().GetLog(i, &l); err == nil {
			out = append(out, l.Data...)
		}
	}
	return out
}

// Root keys reach raft wrapped: neither the log, a snapshot nor the state
// store holds their material; the KEK sits in the data dir (0600) and a
// restarted server opens its variables with it.
func TestKeyring_RootKeyMaterialNeverInRaft(t *testing.T) {
	dir := t.TempDir()
	s := testServer(t, dir)
	putVar(t, s, "app/a", "secret-one")
	if _, err := KeyringRotate.Call(context.Background(), s, &structs.KeyringRotateArgs{}); err != nil {
		t.Fatal(err)
	}
	putVar(t, s, "app/b", "secret-two")
	keys, _ := s.State().RootKeys(nil)
	if len(keys) != 2 {
		t.Fatalf("keys: %+v", keys)
	}
	snap, logs := snapshotBytes(t, s), raftLogBytes(t, s)
	for _, k := range keys {
		if len(k.Key) != 0 || len(k.WrappedKey) == 0 || k.KEKID == "" {
			t.Fatalf("stored key %s not wrapped: %+v", k.KeyID, k)
		}
		material, err := s.Auth().MaterialOf(k)
		if err != nil || len(material) != 32 {
			t.Fatalf("material of %s: %v", k.KeyID, err)
		}
		if bytes.Contains(snap, material) || bytes.Contains(logs, material) {
			t.Fatalf("raw material of key %s found in the snapshot or the raft log", k.KeyID)
		}
		if !bytes.Contains(snap, k.WrappedKey) {
			t.Fatalf("the snapshot lacks key %s's wrapped material: the search is not looking at the keyring", k.KeyID)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, auth.KEKFile))
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != auth.KEKSize {
		t.Fatalf("KEK file: %v %v", fi, err)
	}
	s.Shutdown()
	s2 := testServer(t, dir)
	defer s2.Shutdown()
	if got := readVar(t, s2, "app/a"); got != "secret-one" {
		t.Fatalf("after restart app/a = %q", got)
	}
}

// rotate?full=true seals every variable again with the new key, in
// several raft entries, then deprecates the old key; values survive.
func TestKeyring_FullRotationReSealsInBatches(t *testing.T) {
	s := testServer(t, t.TempDir())
	defer s.Shutdown()
	n := auth.RekeyBatchVars*2 + 10
	for i := range n {
		putVar(t, s, fmt.Sprintf("bulk/%03d", i), fmt.Sprintf("value-%d", i))
	}
	old, _ := s.State().ActiveRootKey(nil)
	before := s.raft.LastIndex()
	reply, err := KeyringRotate.Call(context.Background(), s, &structs.KeyringRotateArgs{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	newID := reply.Key.KeyID
	testutil.WaitFor(t, 10*time.Second, "the old key deprecated", func() (bool, string) {
		k, _ := s.State().RootKeyByID(nil, old.KeyID)
		return k.State == structs.RootKeyStateDeprecated, k.State
	})
	left, _ := s.State().VariablesByKeyID(nil, old.KeyID)
	sealedNew, _ := s.State().VariablesByKeyID(nil, newID)
	if len(left) != 0 || len(sealedNew) != n {
		t.Fatalf("%d variables still under the old key, %d under the new", len(left), len(sealedNew))
	}
	batches := 0
	for i := before + 1; i <= s.raft.LastIndex(); i++ {
		var l raft.Log
		if err := s.cluster.LogStore().GetLog(i, &l); err == nil && len(l.Data) > 0 && structs.MessageType(l.Data[0]) == structs.VariablesRekeyRequestType {
			batches++
		}
	}
	if batches != 3 {
		t.Fatalf("%d rekey entries for %d variables, want 3 batches of at most %d", batches, n, auth.RekeyBatchVars)
	}
	if got := readVar(t, s, "bulk/007"); got != "value-7" {
		t.Fatalf("bulk/007 = %q after rekeying", got)
	}
}
