package cluster

import (
	"fmt"
	"path/filepath"

	"github.com/google/uuid"

	"github.com/drover-project/drover/internal/idfile"
)

// nodeIDFile holds a server's identity under data_dir. Raft knows servers
// by this ID (raft protocol 3), never by address, so a server restarted on
// another address or port keeps its place in the cluster.
const nodeIDFile = "node-id"

// LoadOrCreateNodeID returns the configured ID, else the one kept under
// dataDir/server, else a new one that is written there first. A dev server
// (no data dir) gets a fresh ID each start, as its raft state is in memory.
func LoadOrCreateNodeID(configured, dataDir string) (string, error) {
	if configured != "" {
		if _, err := uuid.Parse(configured); err != nil {
			return "", fmt.Errorf("server: node ID %q is not a UUID", configured)
		}
		return configured, nil
	}
	if dataDir == "" {
		return uuid.NewString(), nil
	}
	id, err := idfile.LoadOrCreate(filepath.Join(dataDir, "server"), nodeIDFile)
	if err != nil {
		return "", fmt.Errorf("server: node ID: %w", err)
	}
	return id, nil
}
