package drainer

import (
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// deadline returns when the drain forces everything off the node; zero
// means no deadline.
func deadline(ds *structs.DrainStrategy) time.Time { return ds.ForceTime() }

// forced reports whether the drain must move everything now: a force
// drain (Deadline < 0) or a deadline reached.
func forced(ds *structs.DrainStrategy, now time.Time) bool { return ds.ForcedAt(now) }

// NextDeadline returns the earliest drain deadline among draining nodes
// (zero if none), so the caller can step again then without a state
// change. Deadlines already passed are included; a loop that sleeps until
// the result should use NextDeadlineAfter, or it will spin while a forced
// node waits for its allocs to stop.
func NextDeadline(nodes []*structs.Node) time.Time {
	return nextDeadline(nodes, time.Time{})
}

// NextDeadlineAfter is NextDeadline restricted to deadlines after now:
// once a deadline has passed, its step has already marked everything, so
// only state changes (allocs stopping) matter for that node.
func NextDeadlineAfter(nodes []*structs.Node, now time.Time) time.Time {
	return nextDeadline(nodes, now)
}

func nextDeadline(nodes []*structs.Node, after time.Time) time.Time {
	var next time.Time
	for _, n := range nodes {
		if n == nil || n.DrainStrategy == nil || n.DrainStrategy.Deadline < 0 {
			continue // not draining, or forced at once: no deadline to wait for
		}
		dl := deadline(n.DrainStrategy)
		if dl.IsZero() || !dl.After(after) {
			continue
		}
		if next.IsZero() || dl.Before(next) {
			next = dl
		}
	}
	return next
}
