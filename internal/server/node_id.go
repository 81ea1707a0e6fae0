package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// nodeIDFile holds a server's identity under data_dir. Raft knows servers
// by this ID (raft protocol 3), never by address, so a server restarted on
// another address or port keeps its place in the cluster.
const nodeIDFile = "node-id"

// loadOrCreateNodeID returns the configured ID, else the one kept under
// dataDir/server, else a new one that is written there first. A dev server
// (no data dir) gets a fresh ID each start, as its raft state is in memory.
func loadOrCreateNodeID(configured, dataDir string) (string, error) {
	if configured != "" {
		if _, err := uuid.Parse(configured); err != nil {
			return "", fmt.Errorf("server: node ID %q is not a UUID", configured)
		}
		return configured, nil
	}
	if dataDir == "" {
		return NewUUID(), nil
	}
	path := filepath.Join(dataDir, "server", nodeIDFile)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		id := strings.TrimSpace(string(data))
		if _, err := uuid.Parse(id); err != nil {
			return "", fmt.Errorf("server: %s holds %q, not a UUID", path, id)
		}
		return id, nil
	case !errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("server: read node ID: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("server: create %s: %w", filepath.Dir(path), err)
	}
	id := NewUUID()
	// Write then rename, so a crash never leaves a half-written identity.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("server: write node ID: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("server: write node ID: %w", err)
	}
	return id, nil
}
