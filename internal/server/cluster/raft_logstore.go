package cluster

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	raftwal "github.com/hashicorp/raft-wal"
)

// Raft log backends (server { raft_logstore { backend = ... } }).
const (
	// LogStoreWAL is hashicorp/raft-wal: append-only segment files, one
	// fsync per batch of entries. The default for a new data dir.
	LogStoreWAL = "wal"
	// LogStoreBoltDB is raft-boltdb (bbolt): a B+tree rewritten on every
	// append, two fsyncs per batch. Kept for data dirs that already hold it.
	LogStoreBoltDB = "boltdb"
)

// The names of each backend's files under DataDir/server/raft.
const (
	boltLogFile = "raft.db"
	walLogDir   = "wal"
)

// openLogStore opens raft's log and stable store in dir. A data dir keeps
// the backend it was created with: raft's log cannot move between them in
// place, so asking for the other one is an error that says how to move,
// rather than a server that silently starts with an empty log and loses
// every entry the old one holds.
func openLogStore(dir, want string, logger hclog.Logger) (*raftStores, error) {
	have, err := existingLogStore(dir)
	if err != nil {
		return nil, err
	}
	backend := want
	switch {
	case want == "":
		backend = have
		if backend == "" {
			backend = LogStoreWAL
		}
	case want != LogStoreWAL && want != LogStoreBoltDB:
		return nil, fmt.Errorf("server: raft_logstore backend %q: must be %q or %q", want, LogStoreWAL, LogStoreBoltDB)
	case have != "" && have != want:
		return nil, fmt.Errorf("server: raft_logstore backend is %q, but %s holds a %q log; "+
			"to switch, remove this server from the cluster (operator raft remove-peer), empty its data_dir and let it join again",
			want, dir, have)
	}
	open := openWALLog
	if backend == LogStoreBoltDB {
		open = openBoltLog
	}
	store, closers, err := open(dir, logger)
	if err != nil {
		return nil, err
	}
	stores := &raftStores{stable: store, closers: closers}
	// Keep recent entries in memory for the replication and FSM reads
	// that follow every append.
	if stores.logs, err = raft.NewLogCache(512, store); err != nil {
		stores.Close()
		return nil, err
	}
	return stores, nil
}

// logAndStable is what both backends are: raft's log and stable store.
type logAndStable interface {
	raft.LogStore
	raft.StableStore
}

// existingLogStore names the backend whose files dir holds, or "" for none.
func existingLogStore(dir string) (string, error) {
	_, boltErr := os.Stat(filepath.Join(dir, boltLogFile))
	_, walErr := os.Stat(filepath.Join(dir, walLogDir))
	for _, err := range []error{boltErr, walErr} {
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("server: read raft dir: %w", err)
		}
	}
	switch {
	case boltErr == nil && walErr == nil:
		return "", fmt.Errorf("server: %s holds both a %q and a %q raft log; keep the one the server ran on", dir, boltLogFile, walLogDir)
	case boltErr == nil:
		return LogStoreBoltDB, nil
	case walErr == nil:
		return LogStoreWAL, nil
	}
	return "", nil
}

func openBoltLog(dir string, _ hclog.Logger) (logAndStable, []io.Closer, error) {
	bolt, err := raftboltdb.NewBoltStore(filepath.Join(dir, boltLogFile))
	if err != nil {
		return nil, nil, fmt.Errorf("server: open raft log store: %w", err)
	}
	return bolt, []io.Closer{bolt}, nil
}

func openWALLog(dir string, logger hclog.Logger) (logAndStable, []io.Closer, error) {
	walDir := filepath.Join(dir, walLogDir)
	if err := os.MkdirAll(walDir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("server: create raft wal dir: %w", err)
	}
	wal, err := raftwal.Open(walDir, raftwal.WithLogger(logger.Named("wal")))
	if err != nil {
		return nil, nil, fmt.Errorf("server: open raft wal: %w", err)
	}
	return wal, []io.Closer{wal}, nil
}
