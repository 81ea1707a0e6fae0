package cluster

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/memberlist"
	"github.com/hashicorp/serf/serf"
)

// TestSetupKeyring: server.encrypt seeds the keyring file; the file, once
// there, wins over server.encrypt (its first key is the primary); dev
// mode (no data dir) keeps the key in memory only; a broken file is an
// error naming it.
func TestSetupKeyring(t *testing.T) {
	k1, k2 := make([]byte, 32), make([]byte, 16)
	k1[0], k2[0] = 1, 2
	conf := func() *serf.Config {
		c := serf.DefaultConfig()
		c.MemberlistConfig = memberlist.DefaultLANConfig()
		return c
	}
	var warned []string
	warn := func(msg string, _ ...any) { warned = append(warned, msg) }

	dir := t.TempDir()
	c := conf()
	if err := setupKeyring(dir, k1, c, warn); err != nil {
		t.Fatal(err)
	}
	if c.KeyringFile != filepath.Join(dir, "server", "serf.keyring") || string(c.MemberlistConfig.Keyring.GetPrimaryKey()) != string(k1) {
		t.Fatalf("seeded: file %q", c.KeyringFile)
	}
	enc := base64.StdEncoding.EncodeToString
	if err := os.WriteFile(c.KeyringFile, []byte(`["`+enc(k2)+`", "`+enc(k1)+`"]`), 0o600); err != nil {
		t.Fatal(err)
	}
	c = conf()
	if err := setupKeyring(dir, k1, c, warn); err != nil {
		t.Fatal(err)
	}
	if string(c.MemberlistConfig.Keyring.GetPrimaryKey()) != string(k2) || len(c.MemberlistConfig.Keyring.GetKeys()) != 2 ||
		c.MemberlistConfig.SecretKey != nil || len(warned) != 1 {
		t.Fatalf("the file's keys: primary %v, warnings %v", c.MemberlistConfig.Keyring.GetPrimaryKey(), warned)
	}

	c = conf()
	if err := setupKeyring("", k1, c, warn); err != nil || c.KeyringFile != "" || string(c.MemberlistConfig.SecretKey) != string(k1) {
		t.Fatalf("dev mode: %v %q", err, c.KeyringFile)
	}
	c = conf()
	if err := setupKeyring(t.TempDir(), nil, c, warn); err != nil || c.KeyringFile != "" || c.MemberlistConfig.Keyring != nil {
		t.Fatalf("no key, no file: %v", err)
	}
	for _, body := range []string{`{}`, `[]`, `["AAAA"]`, `["not base64!"]`} {
		if err := os.WriteFile(filepath.Join(dir, "server", "serf.keyring"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := setupKeyring(dir, nil, conf(), warn); err == nil || !strings.Contains(err.Error(), "serf.keyring") {
			t.Errorf("file %s: %v, want an error naming the file", body, err)
		}
	}
}

// FuzzReadKeyringFile: any file content is either a list of valid keys
// or an error, never a panic or an invalid key.
func FuzzReadKeyringFile(f *testing.F) {
	f.Add([]byte(`["7WZiIc3lkVyLTk0gbvIaM1cw9e5vbQGJp37u9Ff+UhA="]`))
	f.Add([]byte(`["AAAAAAAAAAAAAAAAAAAAAA==", "7WZiIc3lkVyLTk0gbvIaM1cw9e5vbQGJp37u9Ff+UhA="]`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`null`))
	file := filepath.Join(f.TempDir(), "serf.keyring")
	f.Fuzz(func(t *testing.T, body []byte) {
		if err := os.WriteFile(file, body, 0o600); err != nil {
			t.Fatal(err)
		}
		keys, err := readKeyringFile(file)
		if err != nil {
			return
		}
		if len(keys) == 0 {
			t.Fatal("no keys and no error")
		}
		for _, k := range keys {
			if memberlist.ValidateKey(k) != nil {
				t.Fatalf("invalid key %x accepted", k)
			}
		}
	})
}
