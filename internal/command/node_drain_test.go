package command

import (
	"testing"
	"time"
)

// TestDrainDeadline_NomadEncoding: -force is a negative deadline (the
// server forces at once), -no-deadline 0 (never forced). The CLI had them
// the other way round, so -force waited forever.
func TestDrainDeadline_NomadEncoding(t *testing.T) {
	for _, c := range []struct {
		name        string
		d           time.Duration
		force, none bool
		want        time.Duration
	}{
		{"deadline", time.Hour, false, false, time.Hour},
		{"force", time.Hour, true, false, -time.Second},
		{"no deadline", time.Hour, false, true, 0},
	} {
		if got := drainDeadline(c.d, c.force, c.none); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
