package fsm

import (
	"context"
	"sync"
)

// appliedIndex lets readers wait until the FSM has applied a raft index.
type appliedIndex struct {
	mu      sync.Mutex
	index   uint64
	changed chan struct{} // closed and replaced on every advance
}

func newAppliedIndex() *appliedIndex { return &appliedIndex{changed: make(chan struct{})} }

func (a *appliedIndex) advance(index uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if index <= a.index {
		return
	}
	a.index = index
	close(a.changed)
	a.changed = make(chan struct{})
}

func (a *appliedIndex) current() (uint64, <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.index, a.changed
}

// WaitForIndex blocks until the FSM has applied index (or a snapshot that
// covers it), or ctx is done.
func (f *FSM) WaitForIndex(ctx context.Context, index uint64) error {
	for {
		applied, changed := f.applied.current()
		if applied >= index || f.state.LatestIndex() >= index {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
