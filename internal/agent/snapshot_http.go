package agent

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"strconv"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) snapshotRoutes() {
	h.mux.HandleFunc("GET /v1/operator/snapshot", h.snapshotSave)
	h.handleWrite("/v1/operator/snapshot", h.snapshotRestore)
}

// snapshotSave answers GET /v1/operator/snapshot with the whole state. The
// snapshot goes to a temporary file first: the reply's Digest header
// (sha-256, which Nomad's client verifies) must precede the body.
func (h *HTTPServer) snapshotSave(w http.ResponseWriter, r *http.Request) {
	f, err := os.CreateTemp("", "drover-snapshot-*")
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	defer os.Remove(f.Name())
	defer f.Close()
	sum := sha256.New()
	if err := h.srv.WriteSnapshot(io.MultiWriter(f, sum)); err != nil {
		h.writeError(w, r, err)
		return
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	w.Header().Set("Digest", "sha-256="+base64.StdEncoding.EncodeToString(sum.Sum(nil)))
	if stats, err := server.StatusRaftStats.Call(r.Context(), h.srv, &structs.GenericRequest{}); err == nil {
		setIndex(w, stats.AppliedIndex)
	}
	if _, err := io.Copy(w, f); err != nil {
		h.log.Debug("snapshot: client went away", "error", err)
	}
}

// snapshotRestore replaces the cluster state with an uploaded snapshot.
// The upload is capped (gzip already bounds the ratio the server spools);
// the server proves it restorable before raft sees it.
func (h *HTTPServer) snapshotRestore(w http.ResponseWriter, r *http.Request) (any, error) {
	r.Body = http.MaxBytesReader(w, r.Body, server.MaxSnapshotBytes)
	return nil, h.srv.RestoreSnapshot(r.Body)
}
