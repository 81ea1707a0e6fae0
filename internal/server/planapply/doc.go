// Package planapply is the leader's plan queue and plan applier.
//
// Schedulers run concurrently without locks (optimistic concurrency, as in
// Omega): two workers may both place work on the same node from the same
// snapshot. The applier is the single point where plans are serialised: it
// takes plans from the PlanQueue in priority order, re-checks every node a
// plan touches against the committed state overlaid with the plans still
// being committed (Evaluate on an overlay), commits the part that still
// fits in one raft entry, and answers the worker with a PlanResult once
// that entry is committed. When any node was rejected the result carries a
// RefreshIndex, so the worker retries on a snapshot that includes whatever
// beat it. Plans are proposed without waiting for the entries before them
// (pipeline.go), so raft commits many in one write.
//
// Every piece can be stepped synchronously (Dequeue with a done context,
// then ApplyOne, which takes one plan through the whole pipeline) so tests
// can drive the applier deterministically; Run is the loop a real leader
// runs, which keeps many plans in flight.
//
// Wiring on the leader: on gaining leadership call SetEnabled(true) and
// start Run with a context that ends on losing it; then SetEnabled(false),
// which fails queued plans with ErrNotLeader. Raft.ApplyPlanResults (and an
// AsyncRaft's CommitFuture.Wait) must return only once the entry is
// committed and applied locally, and StateSource.SnapshotMinIndex must wait
// for the local FSM to have applied an index: together with the overlay
// they make every plan see the plans before it.
package planapply
