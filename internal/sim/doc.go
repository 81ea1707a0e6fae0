// Package sim is Drover's cluster simulator: the real server (raft in
// memory, FSM, state store, broker, blocked evals, workers, plan applier,
// leader duties, heartbeat timers) on a manual clock, driven by simulated
// client nodes that register, heartbeat on the clock, pull their allocations
// and report them running, healthy, restarted, failed or complete, and by
// fault injection. drover sim FILE runs a scenario file.
//
// # Determinism
//
// The server runs one worker and draws IDs from one seeded stream (the
// schedulers take an ID source too). Nothing runs on its own: the server is
// built with Config.ManualDuties, and the simulator, on its one goroutine,
// runs Server.StepDuties (every leader duty's step, then the worker's, in a
// fixed order) until a pass makes no progress, lets the nodes report in name
// order, and repeats until nothing changes; then it moves the clock to the
// next timer (a heartbeat expiry, a broker delay, the GC or unblock-failed
// period, a deployment, drain or periodic-launch deadline, a node's
// heartbeat). Raft commits synchronously, so there is no settle window and
// no sleeping, and the same seed gives the same transcript byte for byte
// (TestScenarios runs every scenario twice and compares; the only real-time
// wait is raft's first election). Options.Realtime instead runs the
// production goroutines on the real clock, for load (realtime.go,
// scale_test.go).
//
// # Faults
//
// Plan rejections (server Config.PlanRejectHook), a worker dying mid-eval
// (nack), a leader change (Server.StepLeadership), delayed raft applies
// (Config.RaftApplyHook holds entries before they are proposed; the outcome
// must not change).
//
// # Scenarios
//
// Scenarios are HCL files (testdata/scenarios) of nodes, jobs (with
// disconnect { lost_after replace reconcile } or max_client_disconnect,
// prevent_reschedule_on_lost,
// cron, parameterized, update stagger), a timeline (register, update, scale,
// stop, purge, stop_alloc, restart_alloc, promote, fail_deployment,
// force_periodic, dispatch, drain, drain_deadline, ineligible/eligible,
// down, miss_heartbeats/resume, fingerprint, fill, fail_alloc, faults) and
// expected eval counts/statuses/pointers (including next/blocked/previous =
// "none" for the chain breaks of preemption and the deployment watcher) and
// alloc counts (by job, node, status, in-place restarts) (expect_test.go
// proves the checker reports every mismatch). A file may hold variant blocks
// (scenario_variants.go): the same story for several values, each decoded
// with var.NAME bound to its variant's attributes, instead of near-identical
// copies. Each file has a golden transcript (NAME.golden: report plus every
// eval and alloc record, each variant's in order) that a run must reproduce
// byte for byte (drover sim -rewrite FILE or go test ./internal/sim -run
// TestScenarios -args -rewrite regenerates it, as etcd's raft datadriven
// tests do); drover sim FILE prints the eval chain and counts and exits 1
// when an expectation fails.
//
// After every step, CheckInvariants (invariants.go) verifies design.md's
// invariants: no node over-committed, no static-port clash on a node, every
// live alloc of a live job on a known node, every pending/blocked eval held
// by the broker or the blocked tracker. TestScale_FlappingCluster runs
// design.md's scaled flap, where node-eval coalescing (package
// server/leader) cuts the evals written from ~10,000 to ~150.
//
// # Replay
//
// Replay (replay.go, drover sim replay) restores an operator snapshot,
// rolls it back to an eval's snapshot index and runs the eval through the
// built-in scheduler again, with the simulator's seeded IDs: the same
// snapshot, eval and seed give the same plan byte for byte, and a
// simulated eval replayed with its run's seed gets its original IDs back
// (TestReplay_ReproducesTheRecordedPlan). TestWhatIf_DrainPredictsTheRealDrain
// checks the insight what-if (package server/insight) against the real
// drain of a simulated cluster.
package sim
