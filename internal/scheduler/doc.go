// Package scheduler holds the pure schedulers: a state snapshot and an
// evaluation in, a plan out. It sees the cluster only through the State and
// Planner interfaces, so it is tested and benchmarked without a server.
//
// Builtins(Deps{Now, NewID}) maps eval types to factories (service, batch,
// system, sysbatch); the server passes its clock, the simulator its clock
// and a deterministic ID source. The worker in package server is the
// Planner: SubmitPlan, UpdateEval, CreateEval, ReblockEval.
//
//   - generic.go (service, batch) and system.go (system, sysbatch): the
//     retry loop (retry.go; attempt limits 5/2/5, reset when a plan commits
//     in part); past the limit a max-plan-attempts blocked eval and the eval
//     failed; anything unplaced gives one queued-allocs blocked eval (or
//     re-blocks the blocked eval being processed); an eval whose processing
//     submitted nothing, left nothing to place and wrote no follow-up is a
//     no-op and ends canceled (pending and blocked alike, system jobs too;
//     named superseded when a newer job version made it stale); outcome.go
//     writes FailedTGAllocs, QueuedAllocations and the final status.
//   - Evals finished by their plan (outcome.go, attachFinal): a plan that,
//     once committed in full, leaves its scheduler nothing to do but write
//     "complete" carries that final eval (Plan.FinalEval: the outcome's
//     pointers and queued counts with the plan's placements taken off; none
//     when the eval would be re-blocked). When the result says EvalFinished
//     the scheduler returns without UpdateEval. The tests' harness checks,
//     in every test, that a fully committed plan carried exactly the eval
//     the scheduler then wrote.
//   - jobstate.go: what a job scheduler reads. Every alloc of the job ID
//     is read, as Nomad's schedulers do; those of an earlier incarnation (a
//     job purged and registered again, so a different Job.CreateIndex) are
//     never counted for the job, and the live ones are stopped ("alloc not
//     needed since its job was purged"), whichever eval of the job ID runs.
//   - reconcile.go, reschedule.go, tasks_updated.go, deployment.go: place /
//     stop / migrate / replace lost / in-place vs destructive update /
//     reschedule now or later (alloc-failure follow-up evals), deployments
//     with canaries and max_parallel, annotations (DesiredTGUpdates). The
//     reconciler counts an alloc replaced by a placement (its
//     NextAllocation) only while it is still live.
//   - disconnect.go: groups with a disconnect block (lost_after) or
//     max_client_disconnect on a disconnected node: allocs marked unknown,
//     replaced unless replace = false, one delayed max-disconnect-timeout
//     eval per deadline (node's StatusUpdatedAt + lost_after; PreviousEval =
//     the eval that wrote it) that marks them lost; on reconnect one of each
//     original/replacement pair is kept per reconcile (best_score,
//     longest_running, keep_original, keep_replacement) and the other
//     stopped. A group with prevent_reschedule_on_lost is never replaced
//     for a gone node: its allocs on a down node (or one disconnected past
//     lost_after) are marked unknown once and kept, and while disconnected
//     they are not replaced either.
//   - feasible.go, constraints.go, distinct.go, class.go, version.go: filter
//     chain with exported reasons, every constraint operator, results cached
//     per computed node class (ComputeClass), unique.* escapes.
//     feasible_host_volumes.go rejects nodes without a requested host volume
//     (or with a read-only one for a writable claim) with the reason
//     "missing compatible host volumes: <source>", so a blocked eval's
//     FailedTGAllocs names it. feasible_host_networks.go rejects nodes
//     lacking an address on a host network a port names (port {
//     host_network }) with "missing host network <name>".
//     feasible_devices.go: device requests (name "type", "vendor/type" or
//     "vendor/type/name", count, constraints on ${device.*} with units):
//     nodes without a device group that answers one are filtered ("missing
//     device <name>"); the fit grants free healthy instances, never one
//     another alloc holds ("device <name>: asked N, free M"), the group
//     the request's affinities score best.
//   - stack.go, rank.go, spread.go, fit.go, ports.go: sampled candidates
//     (seeded per eval), binpack or spread, job anti-affinity, reschedule
//     penalty, affinities, spreads, resource fit with exhausted dimensions,
//     static/dynamic port assignment, each port on its host network's
//     address (the node's own for "default"); ports collide per address
//     (the plan applier checks the same), the client's reserved ports hold
//     on every address and a host network's on its own. Preemption frees
//     only ports on the node's own address.
//     A node's usage (usage.go) starts
//     from the state's per-node summary (State.NodeUsage: one read, not the
//     node's allocs) less the plan's stops and replaced allocs, plus its
//     placements; a State laid over another (insight, sim replay) computes
//     the summary from its own allocs (structs.NewNodeUsage). An eval that
//     will rank a good part of the cluster (or has read many summaries
//     one by one) reads them all in one pass instead (the store's
//     EachNodeUsage, which the overlays do not offer). Per-eval node state
//     (usage, class answers, spread values) is kept by the node's position
//     in State.NodeSet's list, sorted by ID, and the positions travel with
//     the shuffled candidates, so ranking a node hashes no node ID.
//     Options with equal score components share one score map in the
//     metrics, and an eval's placements one NodesAvailable map: metrics
//     are never modified once in the plan. testdata/plans.golden pins the
//     placements and everything the schedulers write for seeded random
//     clusters (TestPlanGolden).
//   - preempt*.go: only after a placement found no room, and when the
//     scheduler configuration enables it for the job type (system by
//     default): evict live allocs of other jobs at least 10 priority below,
//     the fewest, then the lowest-priority, then the closest-fitting set
//     (static ports included); system/sysbatch on their own node,
//     service/batch ranked across sampled nodes. Victims go in
//     Plan.NodePreemptions; the applier evicts them and writes one
//     preemption eval per victim job.
//   - diagnose.go: DiagnoseGroup runs the same checks (candidate filter,
//     feasibility chain, fit, ports, distinct_*) for one more alloc of a
//     group on every node and records every failure with its numbers (asked
//     and free, the node's value of a constraint, the alloc holding a port
//     or a distinct host, what preemption could free, the free dynamic
//     ports), for the insight answers (package server/insight,
//     docs/insight.md). UpdateIsDestructive (tasks_updated.go) tells
//     insight's headroom whether an alloc of an older job version would
//     be replaced or updated in place.
//
// BenchmarkServiceScheduler reproduces Nomad's benchmark shape;
// BenchmarkServiceSchedulerBusy runs its 5000/600 case on nodes that already
// hold 10 allocs each, where reading each candidate's allocs used to cost;
// BenchmarkSystemScheduler places a system job on the same 5000 nodes.
package scheduler
