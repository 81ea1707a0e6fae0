package client

import (
	"time"
)

// sleep waits d on the client's clock. It returns early (false) when the
// client shuts down, and reports wake when that channel fires first. The
// timer is stopped on return so a manual clock holds no stale timers.
func (c *Client) sleep(d time.Duration, wake <-chan struct{}) (ok, woken bool) {
	fired := make(chan struct{})
	t := c.clock.AfterFunc(d, func() { close(fired) })
	defer t.Stop()
	select {
	case <-fired:
		return true, false
	case <-wake:
		return true, true
	case <-c.ctx.Done():
		return false, false
	}
}

// backoff is the wait before retry n (1, 2, ...): doubling from 1s, never
// above limit.
func backoff(n int, limit time.Duration) time.Duration {
	d := time.Second
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	if d > limit {
		d = limit
	}
	return d
}
