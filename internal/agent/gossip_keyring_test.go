package agent

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// TestGossipKeyring_RotateAcrossServers rotates the gossip key of a
// three-server cluster through /v1/agent/keyring/* with the official
// client: install a new key, use it, remove the old one. Then a server
// with only the old key cannot join and one with the new key can; the
// primary key cannot be removed (a 400 naming every member's refusal);
// each server's keyring file holds the new key only, and a server
// restarted with the old key in its config rejoins with the file's key.
func TestGossipKeyring_RotateAcrossServers(t *testing.T) {
	const oldKey, newKey = "7WZiIc3lkVyLTk0gbvIaM1cw9e5vbQGJp37u9Ff+UhA=", "AOUfjGff+MrTBzNU7NCOTmYajKRkGv8r2ToxheWd+jk="
	withKey := func(key string) func(*config.Config) {
		return func(c *config.Config) { c.Server.Encrypt = key }
	}
	s1 := startClusterServerWith(t, "s1", t.TempDir(), nil, withKey(oldKey))
	join := []string{s1.agent.Server().SerfAddr()}
	s2 := startClusterServerWith(t, "s2", t.TempDir(), join, withKey(oldKey))
	s3 := startClusterServerWith(t, "s3", t.TempDir(), join, withKey(oldKey))
	waitAlive := func(n *clusterNode, want int) {
		t.Helper()
		waitFor(t, n.name+" to see its members alive", 20*time.Second, func() (bool, string) {
			m, err := n.api.Agent().Members()
			if err != nil {
				return false, err.Error()
			}
			alive := 0
			for _, x := range m.Members {
				if x.Status == "alive" {
					alive++
				}
			}
			return alive == want, fmt.Sprintf("%d alive", alive)
		})
	}
	waitAlive(s1, 3)

	keys := s1.api.Agent()
	// A key query that a loaded member answers after serf's timeout is a
	// partial answer (a 400 naming the count); the list is asked again
	// until every member answers.
	list := func() map[string]int {
		t.Helper()
		var r *api.KeyringResponse
		testutil.WaitFor(t, 30*time.Second, "every member to answer the key list", func() (bool, string) {
			var err error
			r, err = keys.ListKeys()
			if err != nil {
				return false, fmt.Sprintf("list: %v", err)
			}
			return r.NumNodes == 3, fmt.Sprintf("list: NumNodes %d, want 3", r.NumNodes)
		})
		return r.Keys
	}
	if got := list(); len(got) != 1 || got[oldKey] != 3 {
		t.Fatalf("keys before: %v", got)
	}
	if r, err := keys.InstallKey(newKey); err != nil || r.NumNodes != 3 {
		t.Fatalf("install: %+v, %v", r, err)
	}
	if got := list(); len(got) != 2 || got[oldKey] != 3 || got[newKey] != 3 {
		t.Fatalf("keys after install: %v", got)
	}
	if _, err := s2.api.Agent().UseKey(newKey); err != nil { // any server can drive it
		t.Fatalf("use: %v", err)
	}
	// Every member refuses to remove its primary key; a member answering
	// after serf's query timeout makes the count partial (2/3), so the
	// refusal is asked again until all three answer (it changes nothing).
	var err error
	testutil.WaitFor(t, 30*time.Second, "every member to refuse removing the primary key", func() (bool, string) {
		_, err = keys.RemoveKey(newKey)
		if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "primary key") {
			t.Fatalf("removing the primary key: %v, want a 400 naming the refusal", err)
		}
		return strings.Contains(err.Error(), "3/3 nodes reported failure"), err.Error()
	})
	if _, err := keys.RemoveKey(oldKey); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if got := list(); len(got) != 1 || got[newKey] != 3 {
		t.Fatalf("keys after rotation: %v", got)
	}

	// Joins: only the new key gets in.
	stale := startClusterServerWith(t, "stale", t.TempDir(), nil, withKey(oldKey))
	if n, err := stale.api.Agent().Join(join[0]); err == nil || n != 0 {
		t.Errorf("a server with the old key joined %d (err %v)", n, err)
	}
	fresh := startClusterServerWith(t, "fresh", t.TempDir(), nil, withKey(newKey))
	if n, err := fresh.api.Agent().Join(join[0]); err != nil || n != 1 {
		t.Fatalf("a server with the new key: joined %d, %v", n, err)
	}
	waitAlive(s1, 4)

	// Persistence: each server's keyring file holds the new key, and it
	// wins over the old key of the config when the server restarts.
	for _, n := range []*clusterNode{s1, s2, s3} {
		body, err := os.ReadFile(filepath.Join(n.dataDir, "server", "serf.keyring"))
		if err != nil {
			t.Fatal(err)
		}
		var onFile []string
		if err := json.Unmarshal(body, &onFile); err != nil || len(onFile) != 1 || onFile[0] != newKey {
			t.Fatalf("%s keyring file %s: %v", n.name, body, err)
		}
	}
	// s3 restarts on its own gossip address, as a restarted server does.
	// (On a fresh port it raced memberlist's reclaim of the dead member's
	// name: the others kept the old address, and the key list then got no
	// answer for over 90 s in about one run in three; moving a server's
	// address is not what this test is about.)
	dir := s3.dataDir
	_, serfPort, err := net.SplitHostPort(s3.agent.Server().SerfAddr())
	if err != nil {
		t.Fatal(err)
	}
	s3.stop()
	s3 = startClusterServerWith(t, "s3", dir, join, func(c *config.Config) {
		withKey(oldKey)(c)
		c.Ports.Serf, _ = strconv.Atoi(serfPort)
	})
	waitFor(t, "the restarted s3 to rejoin with its keyring file's key", 30*time.Second, func() (bool, string) {
		r, err := s3.api.Agent().ListKeys()
		if err != nil {
			return false, err.Error()
		}
		return r.NumNodes == 4 && len(r.Keys) == 1 && r.Keys[newKey] == 4, fmt.Sprintf("%+v", r)
	})
}

// TestGossipKeyring_Refusals: a malformed or missing key is a 400 naming
// Key, before any member is asked.
func TestGossipKeyring_Refusals(t *testing.T) {
	n := startClusterServerWith(t, "solo", t.TempDir(), nil, func(c *config.Config) {
		c.Server.BootstrapExpect = 1
		c.Server.Encrypt = "7WZiIc3lkVyLTk0gbvIaM1cw9e5vbQGJp37u9Ff+UhA="
	})
	for _, tc := range []struct {
		call func() (*api.KeyringResponse, error)
		want string
	}{
		{func() (*api.KeyringResponse, error) { return n.api.Agent().InstallKey("") }, "Key: the base64 gossip key to install is required"},
		{func() (*api.KeyringResponse, error) { return n.api.Agent().UseKey("not base64!") }, "Key: not base64"},
		{func() (*api.KeyringResponse, error) { return n.api.Agent().RemoveKey("AAAA") }, "Key: key size must be 16, 24 or 32 bytes"},
	} {
		if _, err := tc.call(); err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want a 400 with %q", err, tc.want)
		}
	}
	var out map[string]any
	if _, err := n.api.Raw().Write("/v1/agent/keyring/install", map[string]any{"Key": "x", "Bogus": 1}, &out, nil); err == nil ||
		!strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "Bogus") {
		t.Errorf("unknown body field: %v", err)
	}
}
