// Package planapply is the leader's plan queue and plan applier.
//
// Schedulers run concurrently without locks (optimistic concurrency, as in
// Omega): two workers may both place work on the same node from the same
// snapshot. The applier is the single point where plans are serialised: it
// takes plans from the PlanQueue in priority order, re-checks every node a
// plan touches against the latest committed state (Evaluate), commits
// the part that still fits in one raft entry, and answers the worker with a
// PlanResult. When any node was rejected the result carries a RefreshIndex,
// so the worker retries on a snapshot that includes whatever beat it.
//
// Every piece can be stepped synchronously (Dequeue with a done context,
// then ApplyOne) so the simulator can drive the applier deterministically;
// Run is only the thin goroutine wrapper used on a real leader.
//
// Wiring on the leader: on gaining leadership call SetEnabled(true) and
// start Run with a context that ends on losing it; then SetEnabled(false),
// which fails queued plans with ErrNotLeader. Raft.ApplyPlanResults must
// return only once the entry is committed, and StateSource.SnapshotMinIndex
// must wait for the local FSM to have applied an index: together they make
// every plan see the commits of the plans before it.
package planapply
