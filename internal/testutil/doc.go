// Package testutil is the shared test kit: waiting on a condition with a
// deadline (WaitFor), stepping a manual clock until a condition holds
// (AdvanceUntil), checking that a goroutine is parked where it waits
// (Parked) instead of sleeping to see that it did nothing, and, in
// subpackages, fixtures (mock) and helpers that start agents and
// clusters. Only tests import it.
package testutil
