package blockedevals

import "time"

// indexLog remembers, per key (a computed class or a node ID), the latest
// raft index at which capacity changed and when that was recorded, so that
// old records can be pruned.
type indexLog map[string]indexRecord

type indexRecord struct {
	index uint64
	at    time.Time
}

func newIndexLog() indexLog { return indexLog{} }

// record notes a capacity change for key at index. Raft indexes only grow,
// but the max is kept anyway so an out-of-order caller cannot hide a
// newer change.
func (l indexLog) record(key string, index uint64, now time.Time) {
	rec := l[key]
	rec.index = max(rec.index, index)
	rec.at = now
	l[key] = rec
}

// after reports whether key changed at an index later than snapshot.
func (l indexLog) after(key string, snapshot uint64) bool {
	return l[key].index > snapshot
}

// prune drops records made before cutoff.
func (l indexLog) prune(cutoff time.Time) {
	for key, rec := range l {
		if rec.at.Before(cutoff) {
			delete(l, key)
		}
	}
}
