// Package drainer decides, on the leader, which allocations on draining
// nodes to migrate next and when a node's drain is complete. It is a pure
// step function over a snapshot of nodes, allocations and jobs and the
// time: the server's loop feeds it and writes what it returns through raft
// (the Migrate transitions together with their node-drain evals in one
// entry, then DrainStrategy=nil for each Done node).
//
// The rules follow Nomad's documented drain semantics:
//
//   - service allocs migrate a few at a time: per job and task group at most
//     migrate.max_parallel allocs are in flight, a migration until its
//     replacement has a health result from its client (healthy after the
//     migrate block's min_healthy_time, or unhealthy at healthy_deadline;
//     the update block's in a deployment): see inflight.go;
//   - batch allocs keep running until they finish or the deadline passes;
//   - system and sysbatch allocs go last, once every other covered alloc on
//     the node is terminal, or are left alone with IgnoreSystemJobs;
//   - at the deadline (or at once with Deadline < 0) every remaining covered
//     alloc is marked, whatever max_parallel says.
//
// The drainer keeps no memory between steps: whatever it needs (which
// allocs are already marked, which replacements are healthy) is in the
// state, so a new leader picks up a drain where the old one left it.
//
// # Forced drains
//
// A migration that finds no room keeps its alloc running until the drain is
// forced (DrainStrategy.ForcedAt): at the deadline the drainer gives such
// jobs one more node-drain eval, and the scheduler then stops the alloc
// whether or not its replacement fits (it blocks), so the drain completes.
// The leader writes each step's marks with one node-drain eval per job in
// one entry and ends finished drains (the node stays ineligible).
package drainer
