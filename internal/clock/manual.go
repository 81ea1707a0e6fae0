package clock

import (
	"sort"
	"sync"
	"time"
)

// Manual is a clock that only moves when Advance or Set is called. Due
// callbacks run synchronously inside Advance, in time order, so a test
// that advances the clock sees their effects when Advance returns.
type Manual struct {
	mu     sync.Mutex
	now    time.Time
	seq    uint64
	timers map[uint64]*manualTimer
}

type manualTimer struct {
	c   *Manual
	id  uint64
	at  time.Time
	f   func()
	ran bool
}

// NewManual returns a manual clock set to start.
func NewManual(start time.Time) *Manual {
	return &Manual{now: start, timers: map[uint64]*manualTimer{}}
}

// Now returns the clock's time.
func (c *Manual) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f to run when the clock reaches now+d.
func (c *Manual) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &manualTimer{c: c, id: c.seq, at: c.now.Add(d), f: f}
	c.timers[t.id] = t
	return t
}

// After returns a channel that receives when the clock reaches now+d.
func (c *Manual) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.AfterFunc(d, func() { ch <- c.Now() })
	return ch
}

// Advance moves the clock forward by d, running every callback that falls
// due, each with the clock set to its due time.
func (c *Manual) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// Set moves the clock to t (never backwards), running due callbacks.
func (c *Manual) Set(t time.Time) {
	for {
		next := c.popDue(t)
		if next == nil {
			break
		}
		next.f()
	}
	c.mu.Lock()
	if t.After(c.now) {
		c.now = t
	}
	c.mu.Unlock()
}

// Pending returns how many callbacks are scheduled.
func (c *Manual) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// popDue removes and returns the earliest timer due at or before t, with
// the clock moved to its due time; nil when none is due.
func (c *Manual) popDue(t time.Time) *manualTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	var due []*manualTimer
	for _, tm := range c.timers {
		if !tm.at.After(t) {
			due = append(due, tm)
		}
	}
	if len(due) == 0 {
		return nil
	}
	sort.Slice(due, func(i, j int) bool {
		if due[i].at.Equal(due[j].at) {
			return due[i].id < due[j].id
		}
		return due[i].at.Before(due[j].at)
	})
	next := due[0]
	delete(c.timers, next.id)
	next.ran = true
	if next.at.After(c.now) {
		c.now = next.at
	}
	return next
}

func (t *manualTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	_, pending := t.c.timers[t.id]
	delete(t.c.timers, t.id)
	return pending
}

// Next returns when the earliest scheduled callback is due; ok is false
// when none is. The simulator steps time from one due callback to the next
// so it can let the system settle after each.
func (c *Manual) Next() (at time.Time, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, tm := range c.timers {
		if !ok || tm.at.Before(at) {
			at, ok = tm.at, true
		}
	}
	return at, ok
}
