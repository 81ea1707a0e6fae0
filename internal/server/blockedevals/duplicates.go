package blockedevals

import (
	"context"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// duplicates are blocked evals superseded by a newer one for the same job,
// waiting for the leader to cancel them (blocked -> canceled).
type duplicates struct {
	evals []*structs.Evaluation
	// signal is closed and replaced whenever evals grows, waking every
	// waiter without the tracker knowing how many there are.
	signal chan struct{}
}

func newDuplicates() duplicates { return duplicates{signal: make(chan struct{})} }

func (d *duplicates) add(ev *structs.Evaluation) {
	d.evals = append(d.evals, ev)
	close(d.signal)
	d.signal = make(chan struct{})
}

func (d *duplicates) take() []*structs.Evaluation {
	out := d.evals
	d.evals = nil
	return out
}

// reset drops pending duplicates; waiters keep waiting on the same signal.
func (d *duplicates) reset() { d.evals = nil }

// TakeDuplicates returns and clears the pending duplicates without waiting.
func (t *Tracker) TakeDuplicates() []*structs.Evaluation {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dups.take()
}

// GetDuplicates waits up to timeout, measured on the tracker's clock, for
// duplicates to exist, then returns and clears them; nil on timeout. A
// timeout <= 0 does not wait (a manual clock would never fire it).
func (t *Tracker) GetDuplicates(timeout time.Duration) []*structs.Evaluation {
	if timeout <= 0 {
		return t.TakeDuplicates()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	timer := t.clk.AfterFunc(timeout, cancel)
	defer timer.Stop()
	return t.GetDuplicatesCtx(ctx)
}

// GetDuplicatesCtx waits until duplicates exist or ctx is done; it returns
// and clears them, or nil when ctx ended first.
func (t *Tracker) GetDuplicatesCtx(ctx context.Context) []*structs.Evaluation {
	for {
		t.mu.Lock()
		out := t.dups.take()
		signal := t.dups.signal
		t.mu.Unlock()
		if len(out) > 0 {
			return out
		}
		select {
		case <-signal:
		case <-ctx.Done():
			return nil
		}
	}
}
