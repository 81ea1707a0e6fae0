package cluster

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/memberlist"
	"github.com/hashicorp/serf/serf"
)

// The gossip keyring: memberlist encrypts gossip with the keyring's
// primary key and accepts any of its keys, so an operator rotates the
// key without downtime (install a new key on every server, use it,
// remove the old one). Serf's KeyManager broadcasts each change as a
// query that every member applies to its own keyring; with a data dir,
// each member writes its keyring to DataDir/server/serf.keyring (Nomad's
// file and format: a JSON list of base64 keys, the primary first), which
// a restarted server loads in place of server.encrypt, as Nomad does.

// serfKeyringFile is the keyring's file under the data dir.
var serfKeyringFile = filepath.Join("server", "serf.keyring")

// ErrGossipKeyringDisabled answers keyring operations on a server whose
// gossip is not encrypted (no server.encrypt and no keyring file) or
// that runs without gossip.
var ErrGossipKeyringDisabled = errors.New("gossip encryption is not enabled on this server: " +
	"set server { encrypt = \"<key>\" } (drover operator gossip keyring generate makes one) on every server and restart")

// Keyring operations (the last part of /v1/agent/keyring/<op>).
const (
	KeyringList    = "list"
	KeyringInstall = "install"
	KeyringUse     = "use"
	KeyringRemove  = "remove"
)

// KeyringResult is the cluster-wide answer of a keyring operation: per
// key, how many members hold it; per member, its error message; the
// member count.
type KeyringResult struct {
	Messages map[string]string
	Keys     map[string]int
	NumNodes int
}

// KeyringError is a keyring operation some members refused or did not
// answer; the result says which and why.
type KeyringError struct {
	Result *KeyringResult
	Err    error
}

func (e *KeyringError) Error() string {
	var names []string
	for n := range e.Result.Messages {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(e.Err.Error())
	for _, n := range names {
		fmt.Fprintf(&b, "; %s: %s", n, e.Result.Messages[n])
	}
	return b.String()
}

// ValidGossipKey decodes a base64 gossip key and checks its size (AES-128,
// -192 or -256).
func ValidGossipKey(key string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return nil, fmt.Errorf("not base64: %v", err)
	}
	if err := memberlist.ValidateKey(raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// GossipEncrypted reports whether this server's gossip is encrypted (has
// a keyring).
func (c *Cluster) GossipEncrypted() bool { return c.serf != nil && c.serf.EncryptionEnabled() }

// GossipKeyring runs a keyring operation across every gossip member.
// key is the base64 key (unused by list).
func (c *Cluster) GossipKeyring(op, key string) (*KeyringResult, error) {
	if !c.GossipEncrypted() {
		return nil, ErrGossipKeyringDisabled
	}
	km := c.serf.KeyManager()
	var resp *serf.KeyResponse
	var err error
	switch op {
	case KeyringList:
		resp, err = km.ListKeys()
	case KeyringInstall:
		resp, err = km.InstallKey(key)
	case KeyringUse:
		resp, err = km.UseKey(key)
	case KeyringRemove:
		resp, err = km.RemoveKey(key)
	default:
		return nil, fmt.Errorf("unknown keyring operation %q", op)
	}
	if resp == nil {
		return nil, err
	}
	out := &KeyringResult{Messages: resp.Messages, Keys: resp.Keys, NumNodes: resp.NumNodes}
	if err != nil {
		return out, &KeyringError{Result: out, Err: err}
	}
	return out, nil
}

// setupKeyring gives memberlist its keyring: the keyring file when the
// data dir has one (server.encrypt is then ignored, as in Nomad: the file
// holds the keys the cluster rotated to), else server.encrypt, written to
// the file so later changes persist.
func setupKeyring(dataDir string, secret []byte, conf *serf.Config, log func(msg string, args ...any)) error {
	ml := conf.MemberlistConfig
	if dataDir == "" {
		if len(secret) > 0 {
			ml.SecretKey = secret
		}
		return nil
	}
	file := filepath.Join(dataDir, serfKeyringFile)
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		if len(secret) == 0 {
			return nil
		}
		if err := writeKeyringFile(file, secret); err != nil {
			return err
		}
	} else if err != nil {
		return fmt.Errorf("server: gossip keyring: %w", err)
	}
	keys, err := readKeyringFile(file)
	if err != nil {
		return err
	}
	if len(secret) > 0 && string(secret) != string(keys[0]) {
		log("server.encrypt differs from the primary key of the gossip keyring file, which is used", "file", file)
	}
	ring, err := memberlist.NewKeyring(keys, keys[0])
	if err != nil {
		return fmt.Errorf("server: gossip keyring %s: %w", file, err)
	}
	ml.Keyring, ml.SecretKey = ring, nil
	conf.KeyringFile = file
	return nil
}

func writeKeyringFile(file string, key []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("server: gossip keyring: %w", err)
	}
	body, _ := json.Marshal([]string{base64.StdEncoding.EncodeToString(key)})
	if err := os.WriteFile(file, body, 0o600); err != nil {
		return fmt.Errorf("server: gossip keyring: %w", err)
	}
	return nil
}

func readKeyringFile(file string) ([][]byte, error) {
	body, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("server: gossip keyring: %w", err)
	}
	var encoded []string
	if err := json.Unmarshal(body, &encoded); err != nil {
		return nil, fmt.Errorf("server: gossip keyring %s: not a JSON list of keys: %v", file, err)
	}
	if len(encoded) == 0 {
		return nil, fmt.Errorf("server: gossip keyring %s: no keys", file)
	}
	keys := make([][]byte, len(encoded))
	for i, k := range encoded {
		if keys[i], err = ValidGossipKey(k); err != nil {
			return nil, fmt.Errorf("server: gossip keyring %s: key %d: %v", file, i+1, err)
		}
	}
	return keys, nil
}
