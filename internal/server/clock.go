package server

import (
	"time"

	"github.com/google/uuid"
)

// Clock tells the time. Components that stamp or wait take one so tests can
// drive time themselves.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// NewUUID returns a random UUID string.
func NewUUID() string { return uuid.NewString() }
