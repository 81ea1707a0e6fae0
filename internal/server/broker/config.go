package broker

import (
	"time"

	"github.com/google/uuid"
)

// FailedQueue is the pseudo scheduler type that evals exceeding the
// delivery limit are moved to. The leader's reaper dequeues from it, marks
// the evals failed (with a failed-follow-up eval) and acks them.
const FailedQueue = "_failed"

// Default tunables, matching Nomad's documented broker defaults.
const (
	DefaultNackTimeout         = 60 * time.Second
	DefaultInitialNackDelay    = 1 * time.Second
	DefaultSubsequentNackDelay = 20 * time.Second
	DefaultDeliveryLimit       = 3
)

// Config tunes the broker. Zero values take the defaults above.
type Config struct {
	// NackTimeout is how long a dequeued eval may stay unacked before it
	// is nacked on the worker's behalf (the worker is presumed dead).
	NackTimeout time.Duration
	// InitialNackDelay delays the re-enqueue after an eval's first nack.
	InitialNackDelay time.Duration
	// SubsequentNackDelay delays the re-enqueue after every later nack.
	SubsequentNackDelay time.Duration
	// DeliveryLimit is how many deliveries an eval gets before a nack
	// sends it to FailedQueue instead of back to its scheduler.
	DeliveryLimit int
	// NewToken makes dequeue tokens; the simulator injects a seeded one.
	// Defaults to uuid.NewString.
	NewToken func() string
}

func (c Config) withDefaults() Config {
	if c.NackTimeout <= 0 {
		c.NackTimeout = DefaultNackTimeout
	}
	if c.InitialNackDelay <= 0 {
		c.InitialNackDelay = DefaultInitialNackDelay
	}
	if c.SubsequentNackDelay <= 0 {
		c.SubsequentNackDelay = DefaultSubsequentNackDelay
	}
	if c.DeliveryLimit <= 0 {
		c.DeliveryLimit = DefaultDeliveryLimit
	}
	if c.NewToken == nil {
		c.NewToken = uuid.NewString
	}
	return c
}

// nackDelay is the re-enqueue delay after a nack, given how many times the
// eval has been delivered so far: back off more once a retry also failed.
func (c Config) nackDelay(deliveries int) time.Duration {
	if deliveries <= 1 {
		return c.InitialNackDelay
	}
	return c.SubsequentNackDelay
}
