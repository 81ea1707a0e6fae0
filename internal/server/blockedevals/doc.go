// Package blockedevals is the leader's blocked-evaluations tracker.
//
// A scheduler that cannot place every allocation of a job writes a blocked
// eval recording which computed node classes it found eligible or
// ineligible (Evaluation.ClassEligibility) and whether some constraint
// escaped class caching (EscapedComputedClass). The tracker holds those
// evals and hands them back to the eval broker when capacity that could
// help them appears: a node registers, frees resources or shows a new
// class (Unblock), a specific node changes (UnblockNode, for system jobs
// that block per node), or periodically for evals that blocked only
// because their plan kept being rejected (UnblockFailed).
//
// The Tracker is a synchronous state machine behind one mutex: every
// method returns promptly and tests step it directly. The only goroutines
// are the clock's prune timer and callers waiting in Duplicates.
//
// Choices made here (deviations from or refinements of Nomad):
//
//   - One blocked eval per job. Per-node evals (NodeID set, system and
//     sysbatch jobs) are deduplicated per job AND node, since a system job
//     may legitimately be blocked on several nodes at once. They are only
//     released by UnblockNode (their node) and UnblockFailed, never by
//     class-wide Unblock, whose capacity change is on some other node.
//   - Missed unblocks: an eval whose SnapshotIndex is 0 is treated as
//     fresh (it carries no evidence about what its scheduler saw, e.g. it
//     was written by a test or an old client), so it is tracked normally.
//   - The per-class and per-node "last capacity change" indexes are pruned
//     by the clock: every PruneInterval, records older than PruneThreshold
//     are dropped. An eval whose scheduler snapshot is older than the
//     threshold can then miss an unblock; UnblockFailed and later capacity
//     changes still recover it.
//   - Quotas are not modelled: an eval blocked on a quota unblocks like
//     any other.
//   - Evals handed to the tracker must not be mutated afterwards (the
//     rule of docs/design.md that state objects are immutable): its class indexes are
//     built from ClassEligibility at Block time.
//
// The last capacity-change index per class and per node catches the unblocks
// that happen between a scheduler's snapshot and its blocked-eval write: an
// eval whose snapshot predates a capacity change on a class it could use is
// handed back to the broker at once instead of waiting blocked. Blocked
// evals of a job that is stopped or purged are not the tracker's concern:
// the leader drops them (Untrack) and cancels them (package server/leader).
package blockedevals
