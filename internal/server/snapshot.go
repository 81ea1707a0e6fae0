package server

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// snapshotMagic starts every operator snapshot file, so a restore of
// something else fails with a clear message instead of corrupting state.
const snapshotMagic = "drover-snapshot-v1\n"

// MaxSnapshotBytes caps an operator snapshot's decompressed state. The
// upload is spooled to a temporary file, so the cap bounds disk, not
// memory; it also stops a gzip bomb.
const MaxSnapshotBytes int64 = 1 << 30

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
	list, err := s.cluster.SnapshotStore().List()
	if err != nil || len(list) == 0 {
		return nil, nil, fmt.Errorf("snapshot: none available: %v", err)
	}
	return s.cluster.SnapshotStore().Open(list[0].ID)
}

// RestoreSnapshot replaces the cluster's whole state with an operator
// snapshot, through raft (every server applies it), and rebuilds the
// leader's broker and blocked tracker from the restored state.
//
// raft panics when the FSM refuses a user snapshot, and keeps the bad
// snapshot on disk, so a server would never start again. The upload is
// therefore spooled and restored into a scratch state store first: only a
// snapshot that restores there completely is handed to raft.
//
// A follower sends the upload to the leader, which restores it.
func (s *Server) RestoreSnapshot(r io.Reader) error {
	if s.IsLeader() || !s.cluster.HasGossip() {
		return s.restoreSnapshotLocally(r)
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxSnapshotBytes+1))
	if err != nil {
		return BadRequest("snapshot: read: %v", err)
	}
	_, err = ClusterSnapshotRestore.Call(s.ctx, s, &structs.SnapshotRestoreRequest{Data: data})
	return err
}

func (s *Server) restoreSnapshotLocally(r io.Reader) error {
	meta, payload, err := SpoolSnapshot(r, MaxSnapshotBytes)
	if err != nil {
		return err
	}
	defer os.Remove(payload.Name())
	defer payload.Close()
	if err := CheckSnapshotPayload(payload); err != nil {
		return err
	}
	if _, err := payload.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := s.raft.Restore(meta, payload, raftApplyTimeout); err != nil {
		return fmt.Errorf("snapshot restore: %w", err)
	}
	return s.leader.Rebuild()
}

// SpoolSnapshot reads an operator snapshot's header and copies its state
// payload (at most limit bytes, decompressed) to a temporary file, which
// the caller removes. Every malformed upload is a 400.
func SpoolSnapshot(r io.Reader, limit int64) (*raft.SnapshotMeta, *os.File, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, nil, uploadError(err)
	}
	br := bufio.NewReader(io.LimitReader(zr, limit+1))
	magic, err := br.ReadString('\n')
	if err != nil || magic != snapshotMagic {
		return nil, nil, BadRequest("snapshot: not a drover snapshot (bad header)")
	}
	line, err := br.ReadBytes('\n')
	if err != nil {
		return nil, nil, BadRequest("snapshot: truncated metadata: %v", err)
	}
	var meta raft.SnapshotMeta
	if err := json.Unmarshal(line, &meta); err != nil {
		return nil, nil, BadRequest("snapshot: bad metadata: %v", err)
	}
	if meta.Version < raft.SnapshotVersionMin || meta.Version > raft.SnapshotVersionMax {
		return nil, nil, BadRequest("snapshot: unsupported snapshot version %d", meta.Version)
	}
	f, err := os.CreateTemp("", "drover-restore-*")
	if err != nil {
		return nil, nil, err
	}
	n, err := io.Copy(f, br)
	if err == nil && int64(len(magic)+len(line))+n > limit {
		err = NewCodedError(http.StatusRequestEntityTooLarge, "snapshot: larger than %d bytes", limit)
	} else if err == nil && n != meta.Size {
		err = BadRequest("snapshot: payload is %d bytes, metadata says %d", n, meta.Size)
	} else if err != nil {
		err = uploadError(err)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, nil, err
	}
	return &meta, f, nil
}

// CheckSnapshotPayload restores a snapshot's state payload into a scratch
// state store: the payload the FSM would restore, proven restorable.
func CheckSnapshotPayload(r io.Reader) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = BadRequest("snapshot: state does not decode: %v", p)
		}
	}()
	scratch, err := state.NewStateStore()
	if err != nil {
		return err
	}
	if err := scratch.Restore(r); err != nil {
		return BadRequest("snapshot: state does not restore: %v", err)
	}
	return nil
}

// uploadError names why reading an upload failed: over the HTTP body cap
// (413) or not a gzip stream (400).
func uploadError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return NewCodedError(http.StatusRequestEntityTooLarge, "snapshot: upload larger than %d bytes", tooLarge.Limit)
	}
	return BadRequest("snapshot: not a drover snapshot (gzip): %v", err)
}
