package broker

import (
	"sync"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// Broker is the eval broker. The zero value is not usable; call New.
type Broker struct {
	cfg Config
	clk clock.Clock

	mu      sync.Mutex
	enabled bool
	// paused (the scheduler configuration's PauseEvalBroker) stops
	// deliveries; everything else goes on (Pause).
	paused bool

	// deliveries counts, per tracked eval ID, how often it was dequeued.
	// Every eval the broker holds anywhere (ready, unacked, delayed,
	// job-pending, cancelable) is in it: that is what makes Enqueue
	// idempotent.
	deliveries map[string]int

	ready   readyQueues
	unack   map[string]*unacked            // eval ID -> current delivery
	requeue map[string]*structs.Evaluation // token -> eval to enqueue once that delivery ends

	jobs    map[jobKey]string    // job -> ID of its one ready/unacked/nack-delayed eval
	pending map[jobKey]*evalHeap // job -> evals waiting behind it, newest first

	delayed    delayHeap
	delayTimer clock.Timer
	delayAt    time.Time // due time the delay timer is armed for
	delayGen   uint64    // invalidates callbacks of stopped delay timers

	cancelable []*structs.Evaluation

	waiters map[*waiter]struct{}

	observer Observer
	events   []event // transitions to report once the lock is released
}

// New returns a disabled broker; the leader enables it on election.
func New(cfg Config, clk clock.Clock) *Broker {
	b := &Broker{cfg: cfg.withDefaults(), clk: clk, waiters: map[*waiter]struct{}{}}
	b.reset()
	return b
}

// reset empties every queue. Timers must have been stopped by the caller.
func (b *Broker) reset() {
	b.deliveries = map[string]int{}
	b.ready = readyQueues{}
	b.unack = map[string]*unacked{}
	b.requeue = map[string]*structs.Evaluation{}
	b.jobs = map[jobKey]string{}
	b.pending = map[jobKey]*evalHeap{}
	b.delayed = nil
	b.cancelable = nil
}

// Enabled reports whether the broker accepts and delivers evals.
func (b *Broker) Enabled() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.enabled
}

// SetEnabled turns the broker on (leader elected) or off (leadership lost).
// Disabling drops everything it holds, since the next leader restores the
// pending evals from state, and wakes blocked dequeuers with ErrNotEnabled.
func (b *Broker) SetEnabled(enabled bool) {
	b.mu.Lock()
	defer b.unlock()
	b.enabled = enabled
	if !enabled {
		b.flushLocked()
	}
}

// SetPaused pauses or resumes deliveries: while paused, Dequeue delivers
// nothing (workers wait) but the broker still takes evals, runs its nack
// and delay timers and accepts acks and nacks of the evals already out.
// Nomad disables its broker instead and restores the pending evals from
// the state on resume; holding them gives the same deliveries without
// the restore. Pausing is the leader's to apply (the scheduler
// configuration); it survives SetEnabled.
func (b *Broker) SetPaused(paused bool) {
	b.mu.Lock()
	defer b.unlock()
	b.paused = paused
	if !paused {
		b.wakeAllLocked()
	}
}

// Paused reports whether deliveries are paused.
func (b *Broker) Paused() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.paused
}

func (b *Broker) flushLocked() {
	for _, u := range b.unack {
		u.stopTimer()
	}
	b.stopDelayTimerLocked()
	b.reset()
	b.wakeAllLocked()
}

// unlock releases the lock and then reports the transitions recorded
// under it, so an observer may call back into the broker.
func (b *Broker) unlock() {
	evs, obs := b.events, b.observer
	b.events = nil
	b.mu.Unlock()
	for _, e := range evs {
		obs(e.evalID, e.status, e.at)
	}
}
