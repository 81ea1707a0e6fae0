package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/drover-project/drover/internal/state"
)

// runScale (f) places the spec's jobs (100 x 10,000 on 10,000 nodes: a
// million allocs), then measures what holding them costs: the process's
// live heap and RSS, and the raft snapshot of the state store, written to
// a file and restored into an empty store once the server is shut down.
func runScale(c *Cluster, res *Result) error {
	if err := runPlacement(c, res); err != nil {
		return err
	}
	res.HeapBytes = liveHeap()
	res.RSSBytes = rssBytes()
	if res.HeapProfile != nil {
		if err := res.HeapProfile(); err != nil {
			return fmt.Errorf("heap profile: %w", err)
		}
	}
	return measureSnapshot(c, res)
}

// measureSnapshot writes the server's snapshot (Persist, as raft's FSM
// snapshot does) to a temporary file, shuts the server down and restores
// the file into a new store. The restore is timed as a server starting
// from its snapshot runs it: raft's Restore into a process that holds no
// other state. With the placing server still live, the process held two
// stores (and the dev server's in-memory raft log) at once, 5.5 GiB at
// the peak for a million allocs, which no real restore does: a restarted
// server has only the snapshot, and a follower installing one holds its
// old state but not a second server. Result.RestoreBaseHeapBytes says
// what the restore started from.
func measureSnapshot(c *Cluster, res *Result) error {
	f, err := os.CreateTemp("", "drover-bench-snapshot-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := saveSnapshot(c.Srv.State(), f, res); err != nil {
		return err
	}
	c.Close()
	c.Srv, c.close = nil, func() {}
	res.RestoreBaseHeapBytes = liveHeap()
	restored, err := state.NewStateStore()
	if err != nil {
		return err
	}
	start := time.Now()
	// Labelled so a CPU profile can focus on it: -tagfocus phase=restore.
	pprof.Do(context.Background(), pprof.Labels("phase", "restore"), func(context.Context) {
		err = restored.Restore(bufio.NewReaderSize(f, 1<<20))
	})
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	res.SnapshotRestore = time.Since(start)
	allocs, err := restored.Allocs(nil, "*")
	if err != nil {
		return err
	}
	if len(allocs) != res.Placements {
		return fmt.Errorf("restored %d allocs, want %d", len(allocs), res.Placements)
	}
	return nil
}

// saveSnapshot persists st to f and leaves f at its start.
func saveSnapshot(st *state.StateStore, f *os.File, res *Result) error {
	start := time.Now()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := st.Snapshot().Persist(w); err != nil {
		return fmt.Errorf("persist: %w", err)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	res.SnapshotSave = time.Since(start)
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	res.SnapshotBytes = size
	_, err = f.Seek(0, io.SeekStart)
	return err
}

// rssBytes is the process's resident set size, 0 where /proc is missing.
func rssBytes() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
