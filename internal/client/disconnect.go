package client

import (
	"sync"
	"time"

	"github.com/drover-project/drover/internal/client/allocrunner"
)

// A group's disconnect.stop_on_client_after (or the older
// stop_after_client_disconnect) stops its allocs on a client that has not
// reached any server for that long: the servers will have given the work
// to another node by then, and two copies must not run for long. The
// clock starts at the last successful heartbeat or registration.

// contactTracker remembers the last time the servers answered.
type contactTracker struct {
	mu      sync.Mutex
	last    time.Time
	stopped map[string]bool // allocs stopped for being disconnected
}

// noteContact records a successful heartbeat or registration.
func (c *Client) noteContact() {
	c.contact.mu.Lock()
	c.contact.last = c.clock.Now()
	c.contact.mu.Unlock()
}

func (c *Client) sinceContact() time.Duration {
	c.contact.mu.Lock()
	defer c.contact.mu.Unlock()
	return c.clock.Now().Sub(c.contact.last)
}

// stopDisconnectedAllocs stops every alloc whose group's
// stop_on_client_after has passed since the last contact, once each.
func (c *Client) stopDisconnectedAllocs() {
	since := c.sinceContact()
	for _, r := range c.allRunners() {
		after, ok := c.disconnectStopAfter(r)
		if !ok || since < after || !c.markStoppedForDisconnect(r.ID()) {
			continue
		}
		c.logger.Warn("no server reached within stop_on_client_after; stopping alloc",
			"alloc_id", r.ID(), "since_contact", since, "stop_on_client_after", after)
		r.Stop()
	}
}

// disconnectStopAfter returns the runner's stop_on_client_after, if its
// group has one and it was not stopped for it already.
func (c *Client) disconnectStopAfter(r *allocrunner.Runner) (time.Duration, bool) {
	a := r.Alloc()
	if a == nil || a.Job == nil || a.ServerTerminalStatus() {
		return 0, false
	}
	tg := a.Job.LookupTaskGroup(a.TaskGroup)
	if tg == nil {
		return 0, false
	}
	c.contact.mu.Lock()
	done := c.contact.stopped[a.ID]
	c.contact.mu.Unlock()
	if done {
		return 0, false
	}
	return tg.StopOnClientDisconnect()
}

func (c *Client) markStoppedForDisconnect(id string) bool {
	c.contact.mu.Lock()
	defer c.contact.mu.Unlock()
	if c.contact.stopped == nil {
		c.contact.stopped = map[string]bool{}
	}
	if c.contact.stopped[id] {
		return false
	}
	c.contact.stopped[id] = true
	return true
}

// untilNextDisconnectStop is how long until the earliest pending
// stop_on_client_after passes, so a failing heartbeat loop wakes up in
// time; ok is false when no alloc has one pending.
func (c *Client) untilNextDisconnectStop() (time.Duration, bool) {
	since := c.sinceContact()
	var next time.Duration
	found := false
	for _, r := range c.allRunners() {
		if after, ok := c.disconnectStopAfter(r); ok {
			left := max(after-since, 0)
			if !found || left < next {
				next, found = left, true
			}
		}
	}
	return next, found
}
