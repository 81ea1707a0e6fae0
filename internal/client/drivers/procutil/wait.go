package procutil

import (
	"context"
	"time"
)

// PollInterval is how often WaitGone looks at /proc.
const PollInterval = 100 * time.Millisecond

// WaitGone blocks until the process (pid, start) has exited or ctx ends.
// It polls because the process may not be our child (it was started by a
// client that restarted since), so wait(2) cannot see it.
func WaitGone(ctx context.Context, pid int, start uint64) error {
	t := time.NewTicker(PollInterval)
	defer t.Stop()
	for Alive(pid, start) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}
