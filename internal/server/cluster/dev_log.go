package cluster

import (
	"sync"
	"sync/atomic"

	"github.com/hashicorp/raft"
)

// A dev server keeps raft's log in memory. Raft snapshots (and then drops
// the log behind the snapshot) after a number of entries and at most every
// SnapshotInterval, but entries differ a thousandfold in size, from an eval
// update to a plan of 10,000 allocs, and a busy dev agent wrote tens of
// thousands of entries between checks: the log held more heap than the
// state it produced. devLog counts its entries' bytes and asks raft for a
// snapshot once they pass a budget. A dev snapshot is normally kept
// unwritten (dev_snapshots.go), so it costs next to nothing, its List size
// is 0 and the budget stays devLogMinBytes. A written one costs about the
// state's size, so the budget is then half the last snapshot: the
// snapshots' cost stays within twice the bytes logged, and the log's heap
// within half the state's (plus devLogMinBytes).
type devLog struct {
	*raft.InmemStore
	snaps raft.SnapshotStore

	bytes   atomic.Int64 // payload bytes of the entries held
	trigger atomic.Int64 // ask for a snapshot once bytes passes this

	mu       sync.Mutex
	snapshot func() error // raft.Snapshot, once raft runs
	running  bool
}

const (
	// devLogMinBytes is the smallest budget: a busy small cluster (drover
	// bench a and b: 10,000 placements write ~20 MiB of entries) should
	// not spend its CPU on snapshots; 8 MiB cost them ~15%.
	devLogMinBytes = 32 << 20
	// devTrailingLogs is how many entries a dev server keeps behind a
	// snapshot (raft's TrailingLogs; the default is 10,240). Entries are
	// up to a whole plan (10,000 allocs: megabytes): with 128, a million
	// allocs (bench f) left 0.18 GB of entries behind the snapshot, 8% of
	// the heap. Nothing reads them (no followers, no restart).
	devTrailingLogs = 8
)

func newDevLog(mem *raft.InmemStore, snaps raft.SnapshotStore) *devLog {
	d := &devLog{InmemStore: mem, snaps: snaps}
	d.trigger.Store(devLogMinBytes)
	return d
}

// start lets the log ask for snapshots through snapshot.
func (d *devLog) start(snapshot func() error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.snapshot = snapshot
}

func entryBytes(l *raft.Log) int64 { return int64(len(l.Data) + len(l.Extensions)) }

// StoreLog implements raft.LogStore.
func (d *devLog) StoreLog(l *raft.Log) error { return d.StoreLogs([]*raft.Log{l}) }

// StoreLogs implements raft.LogStore.
func (d *devLog) StoreLogs(logs []*raft.Log) error {
	if err := d.InmemStore.StoreLogs(logs); err != nil {
		return err
	}
	var n int64
	for _, l := range logs {
		n += entryBytes(l)
	}
	if d.bytes.Add(n) > d.trigger.Load() {
		d.compact()
	}
	return nil
}

// DeleteRange implements raft.LogStore.
func (d *devLog) DeleteRange(lo, hi uint64) error {
	var n int64
	for i := lo; i <= hi; i++ {
		var l raft.Log
		if d.InmemStore.GetLog(i, &l) == nil {
			n += entryBytes(&l)
		}
	}
	if err := d.InmemStore.DeleteRange(lo, hi); err != nil {
		return err
	}
	d.bytes.Add(-n)
	return nil
}

// compact asks raft for a snapshot in the background (raft's loop is
// what calls StoreLogs, and a snapshot needs that loop), one at a time.
func (d *devLog) compact() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.snapshot == nil || d.running {
		return
	}
	d.running = true
	go func() {
		_ = d.snapshot() // failures are retried after the next budget (below)
		d.mu.Lock()
		d.running = false
		d.mu.Unlock()
		// What is left (the trailing entries, or everything if the
		// snapshot failed: shutdown, a configuration change not yet
		// applied) waits for another budget's worth of entries, so a
		// snapshot is never retried on every entry.
		d.trigger.Store(d.bytes.Load() + d.budget())
	}()
}

// budget is how many bytes of entries the log may hold before the next
// snapshot: half the last snapshot, at least devLogMinBytes.
func (d *devLog) budget() int64 {
	list, err := d.snaps.List()
	if err != nil || len(list) == 0 {
		return devLogMinBytes
	}
	return max(devLogMinBytes, list[0].Size/2)
}
