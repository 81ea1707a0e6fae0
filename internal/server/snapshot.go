package server

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/structs"
)

// snapshotMagic starts every operator snapshot file, so a restore of
// something else fails with a clear message instead of corrupting state.
const snapshotMagic = "drover-snapshot-v1\n"

// WriteSnapshot takes a raft snapshot and writes it to w as an operator
// snapshot: gzip of a magic line, raft's snapshot metadata as one JSON
// line, and the FSM's persisted state.
func (s *Server) WriteSnapshot(w io.Writer) error {
	if err := s.raft.Snapshot().Error(); err != nil && err != raft.ErrNothingNewToSnapshot {
		return fmt.Errorf("snapshot: %w", err)
	}
	meta, rc, err := s.latestSnapshot()
	if err != nil {
		return err
	}
	defer rc.Close()
	zw := gzip.NewWriter(w)
	if _, err := io.WriteString(zw, snapshotMagic); err != nil {
		return err
	}
	if err := json.NewEncoder(zw).Encode(meta); err != nil {
		return err
	}
	if _, err := io.Copy(zw, rc); err != nil {
		return err
	}
	return zw.Close()
}

// latestSnapshot opens the newest raft snapshot.
func (s *Server) latestSnapshot() (*raft.SnapshotMeta, io.ReadCloser, error) {
	list, err := s.stores.snaps.List()
	if err != nil || len(list) == 0 {
		return nil, nil, fmt.Errorf("snapshot: none available: %v", err)
	}
	return s.stores.snaps.Open(list[0].ID)
}

// RestoreSnapshot replaces the cluster's whole state with an operator
// snapshot, through raft (every server applies it), and rebuilds the
// leader's broker and blocked tracker from the restored state.
// A follower sends the snapshot to the leader, which restores it.
func (s *Server) RestoreSnapshot(r io.Reader) error {
	if s.IsLeader() || s.cluster == nil {
		return s.restoreSnapshotLocally(r)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return BadRequest("snapshot: read: %v", err)
	}
	_, err = s.Cluster.SnapshotRestore(s.shutdownCtx, &structs.SnapshotRestoreRequest{Data: data})
	return err
}

func (s *Server) restoreSnapshotLocally(r io.Reader) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return BadRequest("snapshot: not a drover snapshot (gzip): %v", err)
	}
	br := bufio.NewReader(zr)
	magic, err := br.ReadString('\n')
	if err != nil || magic != snapshotMagic {
		return BadRequest("snapshot: not a drover snapshot (bad header)")
	}
	line, err := br.ReadBytes('\n')
	if err != nil {
		return BadRequest("snapshot: truncated metadata: %v", err)
	}
	var meta raft.SnapshotMeta
	if err := json.Unmarshal(line, &meta); err != nil {
		return BadRequest("snapshot: bad metadata: %v", err)
	}
	if err := s.raft.Restore(&meta, br, raftApplyTimeout); err != nil {
		return fmt.Errorf("snapshot restore: %w", err)
	}
	return s.rebuildLeaderState()
}

// rebuildLeaderState drops the leader's in-memory pipeline state and
// rebuilds it from the (restored) state store, as a new leader would.
func (s *Server) rebuildLeaderState() error {
	if !s.leaderActive.Load() {
		return nil
	}
	s.broker.SetEnabled(false)
	s.blocked.SetEnabled(false)
	s.broker.SetEnabled(true)
	s.blocked.SetEnabled(true)
	if err := s.restoreEvals(); err != nil {
		return err
	}
	return s.heartbeat.rearmAll()
}
