package blockedevals

import (
	"context"

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

// Duplicates returns and clears the pending duplicates. When there are
// none it waits until some exist or ctx is done (then nil). It always
// looks once first, so a done ctx makes it a non-blocking take.
func (t *Tracker) Duplicates(ctx context.Context) []*structs.Evaluation {
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
