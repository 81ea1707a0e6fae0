package command

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"sort"

	"github.com/hashicorp/nomad/api"
)

// `operator gossip keyring *`: the servers' gossip (serf) encryption keys,
// through /v1/agent/keyring/* on the agent addressed, which broadcasts
// the change to every server (Nomad's commands, output and exit codes).

func init() {
	register("operator gossip keyring list", gossipKeyringListCmd)
	register("operator gossip keyring install", gossipKeyringChangeCmd("install", "Installing new gossip encryption key...",
		"Installs a new gossip encryption key on every server", (*api.Agent).InstallKey))
	register("operator gossip keyring use", gossipKeyringChangeCmd("use", "Changing primary gossip encryption key...",
		"Makes an installed gossip key the one every server encrypts with", (*api.Agent).UseKey))
	register("operator gossip keyring remove", gossipKeyringChangeCmd("remove", "Removing gossip encryption key...",
		"Removes a gossip encryption key (not the primary one) from every server", (*api.Agent).RemoveKey))
	register("operator gossip keyring generate", gossipKeyringGenerateCmd)
}

func gossipKeyringListCmd() *cmd {
	c := &cmd{Name: "operator gossip keyring list", Synopsis: "Lists the gossip encryption keys of the servers",
		Help: "Prints every key installed on the servers; it exits 1 if any server does not answer or reports an error. " +
			"With ACLs, it needs agent:write."}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, "Gathering installed encryption keys...")
		r, err := cl.Agent().ListKeys()
		if err != nil {
			return apiError("listing the gossip keyring", err)
		}
		keys := make([]string, 0, len(r.Keys))
		for k := range r.Keys {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		rows := [][]string{{"Key"}}
		for _, k := range keys {
			rows = append(rows, []string{k})
		}
		writeColumns(e.stdout, rows)
		return nil
	}
	return c
}

func gossipKeyringChangeCmd(op, doing, synopsis string, call func(*api.Agent, string) (*api.KeyringResponse, error)) func() *cmd {
	return func() *cmd {
		c := &cmd{Name: "operator gossip keyring " + op, Args: "<key>", MinArgs: 1, MaxArgs: 1, Synopsis: synopsis,
			Help: "The key is base64 (16, 24 or 32 bytes; `drover operator gossip keyring generate` makes one). " +
				"It exits 1 if any server does not answer or reports an error. With ACLs, it needs agent:write."}
		c.Run = func(e *env, args []string) error {
			cl, err := e.api()
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, doing)
			if _, err := call(cl.Agent(), args[0]); err != nil {
				return apiError(op+" of the gossip key", err)
			}
			return nil
		}
		return c
	}
}

// gossipKeyringGenerateCmd prints a new random 32-byte key (AES-256), as
// Nomad's does; it calls no API.
func gossipKeyringGenerateCmd() *cmd {
	c := &cmd{Name: "operator gossip keyring generate", Synopsis: "Generates a new gossip encryption key",
		Help: "Prints a random 32-byte key, base64-encoded, for server { encrypt } or `operator gossip keyring install`."}
	c.Run = func(e *env, args []string) error {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return fmt.Errorf("reading random bytes: %w", err)
		}
		fmt.Fprintln(e.stdout, base64.StdEncoding.EncodeToString(key))
		return nil
	}
	return c
}
