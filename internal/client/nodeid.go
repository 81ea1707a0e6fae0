package client

import (
	"path/filepath"

	"github.com/google/uuid"

	"github.com/drover-project/drover/internal/idfile"
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
func loadOrCreateID(dir, name string) (string, error) { return idfile.LoadOrCreate(dir, name) }

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
