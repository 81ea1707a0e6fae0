package client

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// Files in DataDir/client that keep the node's identity across restarts:
// the servers know a node by its ID, and its secret authenticates it.
const (
	nodeIDFile   = "node-id"
	secretIDFile = "secret-id"
)

func joinDir(base, sub string) string {
	if base == "" {
		return ""
	}
	return filepath.Join(base, sub)
}

// loadOrCreateID returns the ID stored in dir/name, creating a random one
// on first use.
func loadOrCreateID(dir, name string) (string, error) {
	p := filepath.Join(dir, name)
	raw, err := os.ReadFile(p)
	if err == nil {
		id := strings.TrimSpace(string(raw))
		if _, perr := uuid.Parse(id); perr != nil {
			return "", fmt.Errorf("%s: not a UUID: %q", p, id)
		}
		return id, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	id := uuid.NewString()
	if err := os.WriteFile(p, []byte(id), 0o600); err != nil {
		return "", err
	}
	return id, nil
}

// nodeIdentity returns the node ID and secret ID, persisted in dataDir/client
// (an empty dataDir keeps them in memory only).
func nodeIdentity(dataDir, override string) (id, secret string, err error) {
	if dataDir == "" {
		id = override
		if id == "" {
			id = uuid.NewString()
		}
		return id, uuid.NewString(), nil
	}
	dir := filepath.Join(dataDir, "client")
	if id, err = loadOrCreateID(dir, nodeIDFile); err != nil {
		return "", "", err
	}
	if override != "" {
		id = override
	}
	secret, err = loadOrCreateID(dir, secretIDFile)
	return id, secret, err
}
