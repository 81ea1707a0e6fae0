package client

import (
	"fmt"
	"sync"

	"github.com/drover-project/drover/internal/client/allocrunner"
)

// Client garbage collection (/v1/client/gc, /v1/client/allocation/:id/gc)
// removes finished allocs from this node: their directories and persisted
// state go, and the servers' record of them stays. A finished alloc the
// servers list again is not run again (addAlloc skips terminal allocs).

// GCAlloc removes one finished alloc; a running one is refused.
func (c *Client) GCAlloc(allocID string) error {
	r, err := c.runner(allocID)
	if err != nil {
		return err
	}
	if !finished(r) {
		return fmt.Errorf("%w: allocation %s is still running; stop it first", ErrBadRequest, allocID)
	}
	return c.collect([]*allocrunner.Runner{r})
}

// GCAll removes every finished alloc and reports how many went.
func (c *Client) GCAll() (int, error) {
	var done []*allocrunner.Runner
	for _, r := range c.allRunners() {
		if finished(r) {
			done = append(done, r)
		}
	}
	return len(done), c.collect(done)
}

func finished(r *allocrunner.Runner) bool {
	select {
	case <-r.Done():
		return true
	default:
		return false
	}
}

// collect drops the runners from the client, then destroys them in
// parallel.
func (c *Client) collect(runners []*allocrunner.Runner) error {
	return c.collectN(runners, len(runners))
}

// collectN is collect destroying at most parallel runners at once (at
// least one).
func (c *Client) collectN(runners []*allocrunner.Runner, parallel int) error {
	c.mu.Lock()
	for _, r := range runners {
		delete(c.runners, r.ID())
	}
	c.mu.Unlock()
	sem := make(chan struct{}, max(1, parallel))
	var wg sync.WaitGroup
	errs := make([]error, len(runners))
	for i, r := range runners {
		sem <- struct{}{}
		wg.Go(func() { errs[i] = r.Destroy(); <-sem })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("client gc: %w", err)
		}
	}
	return nil
}
