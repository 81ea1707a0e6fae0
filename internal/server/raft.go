package server

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
)

// raftStores are the three stores raft needs, plus what to close on shutdown.
type raftStores struct {
	logs    raft.LogStore
	stable  raft.StableStore
	snaps   raft.SnapshotStore
	closers []io.Closer
}

func (r *raftStores) Close() error {
	var errs []error
	for _, c := range r.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// openRaftStores returns in-memory stores in dev mode and on-disk ones
// (a bbolt log/stable store and file snapshots under DataDir/raft) otherwise,
// so a restarted server keeps every acknowledged write.
func openRaftStores(c *Config, logger hclog.Logger) (*raftStores, error) {
	if c.DevMode {
		mem := raft.NewInmemStore()
		return &raftStores{logs: mem, stable: mem, snaps: raft.NewInmemSnapshotStore()}, nil
	}
	if c.DataDir == "" {
		return nil, errors.New("server: data_dir is required outside dev mode")
	}
	dir := filepath.Join(c.DataDir, "server", "raft")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("server: create raft dir: %w", err)
	}
	bolt, err := raftboltdb.NewBoltStore(filepath.Join(dir, "raft.db"))
	if err != nil {
		return nil, fmt.Errorf("server: open raft log store: %w", err)
	}
	cached, err := raft.NewLogCache(512, bolt)
	if err != nil {
		bolt.Close()
		return nil, err
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, logger)
	if err != nil {
		bolt.Close()
		return nil, fmt.Errorf("server: open snapshot store: %w", err)
	}
	return &raftStores{logs: cached, stable: bolt, snaps: snaps, closers: []io.Closer{bolt}}, nil
}

// raftConfig returns raft's config for this server.
func raftConfig(c *Config, logger hclog.Logger) *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(c.RaftAddr)
	rc.Logger = logger
	// Snapshot often enough that a restart replays little log, rarely
	// enough that snapshots cost little.
	rc.SnapshotThreshold = 8192
	rc.SnapshotInterval = 2 * time.Minute
	t := c.RaftTimings
	if t == nil && c.DevMode {
		// One voter needs no failure detection: become leader at once.
		t = &RaftTimings{Heartbeat: 50 * time.Millisecond, Election: 50 * time.Millisecond,
			LeaderLease: 50 * time.Millisecond, Commit: 5 * time.Millisecond}
	}
	if t != nil {
		rc.HeartbeatTimeout, rc.ElectionTimeout = t.Heartbeat, t.Election
		rc.LeaderLeaseTimeout, rc.CommitTimeout = t.LeaderLease, t.Commit
	}
	return rc
}

// bootstrapIfNew bootstraps a single-voter cluster when this server is
// meant to form one and raft has no state yet.
func bootstrapIfNew(c *Config, r *raft.Raft, trans raft.Transport) error {
	if !c.DevMode && c.BootstrapExpect != 1 {
		return nil // multi-server bootstrap waits for peers (later issue)
	}
	cfg := raft.Configuration{Servers: []raft.Server{{
		ID: raft.ServerID(c.RaftAddr), Address: trans.LocalAddr(),
	}}}
	err := r.BootstrapCluster(cfg).Error()
	if errors.Is(err, raft.ErrCantBootstrap) {
		return nil // existing state: the configuration is already in the log
	}
	return err
}
