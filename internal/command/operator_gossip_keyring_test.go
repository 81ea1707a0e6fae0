package command

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/agent/config"
)

// TestGossipKeyringCommands: generate prints a usable key; install, use
// and remove rotate the server's keyring and list shows it; removing the
// primary key and a malformed key exit 1 with the server's reason; an
// agent without gossip encryption says how to enable it.
func TestGossipKeyringCommands(t *testing.T) {
	const oldKey = "7WZiIc3lkVyLTk0gbvIaM1cw9e5vbQGJp37u9Ff+UhA="
	addr, _ := testAgent(t, func(c *config.Config) {
		c.DevMode = false
		c.DataDir = t.TempDir()
		c.BindAddr = "127.0.0.1"
		c.Server.BootstrapExpect = 1
		c.Server.Encrypt = oldKey
	})
	r := run(t, "operator", "gossip", "keyring", "generate")
	newKey := strings.TrimSpace(r.stdout)
	if raw, err := base64.StdEncoding.DecodeString(newKey); r.code != 0 || err != nil || len(raw) != 32 {
		t.Fatalf("generate: %+v (%v)", r, err)
	}
	if again := run(t, "operator", "gossip", "keyring", "generate"); strings.TrimSpace(again.stdout) == newKey {
		t.Fatalf("generate printed the same key twice: %s", newKey)
	}
	list := func() string {
		t.Helper()
		r := run(t, "operator", "gossip", "keyring", "list", "-address", addr)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "Gathering installed encryption keys...\nKey\n") {
			t.Fatalf("list: %+v", r)
		}
		return r.stdout
	}
	if got := list(); !strings.Contains(got, oldKey) || strings.Contains(got, newKey) {
		t.Fatalf("list before: %s", got)
	}
	for _, step := range []struct{ op, key, says string }{
		{"install", newKey, "Installing new gossip encryption key..."},
		{"use", newKey, "Changing primary gossip encryption key..."},
		{"remove", oldKey, "Removing gossip encryption key..."},
	} {
		if r := run(t, "operator", "gossip", "keyring", step.op, "-address", addr, step.key); r.code != 0 || strings.TrimSpace(r.stdout) != step.says {
			t.Fatalf("%s: %+v", step.op, r)
		}
	}
	if got := list(); strings.Contains(got, oldKey) || !strings.Contains(got, newKey) {
		t.Fatalf("list after rotation: %s", got)
	}
	if r := run(t, "operator", "gossip", "keyring", "remove", "-address", addr, newKey); r.code != 1 || !strings.Contains(r.stderr, "primary key") {
		t.Fatalf("removing the primary key: %+v", r)
	}
	if r := run(t, "operator", "gossip", "keyring", "install", "-address", addr, "short"); r.code != 1 || !strings.Contains(r.stderr, "Key:") {
		t.Fatalf("a malformed key: %+v", r)
	}
	if r := run(t, "operator", "gossip", "keyring", "use", "-address", addr); r.code != 1 {
		t.Fatalf("use without a key: %+v", r)
	}

	plain, _ := testAgent(t, nil)
	if r := run(t, "operator", "gossip", "keyring", "list", "-address", plain); r.code != 1 || !strings.Contains(r.stderr, "server { encrypt") {
		t.Fatalf("list without encryption: %+v", r)
	}
}
