// Package leader is the server's leader role: what a server does only
// while it leads the cluster.
//
// On Establish it pauses the broker if the scheduler configuration says
// PauseEvalBroker (the scheduler-config duty follows later changes),
// enables the plan queue, eval broker and blocked-evals tracker, rebuilds them from the state store (route: pending evals to the
// broker, blocked ones to the tracker, blocked evals of stopped or purged
// jobs to be canceled, failed evals without their follow-up to the
// follow-up reaper) and re-arms every node's heartbeat timer with the
// failover TTL; on Revoke it stops them all. While leading, the FSM's
// EvalSink (Sink) hands it every eval a raft entry wrote, which the same
// route dispatches.
//
// Its duties are one table (Duty: a name, a step and a wake), in the order
// the stepped mode runs them:
//
//	heartbeat-expiry     nodes whose heartbeat timer fired: down, or disconnected
//	stopped-job-blocked  cancel blocked evals of stopped or purged jobs
//	duplicate-blocked    cancel blocked evals a newer blocked eval replaced
//	cancelable           cancel evals the broker found superseded
//	undeliverable        evals past the broker's delivery limit: failed, with a follow-up
//	failed-follow-up     a delayed follow-up eval per failed eval
//	unblock-failed       retry evals blocked by max-plan-attempts (a period)
//	core-gc              `_core` GC evals (a period); CoreScheduler runs them
//	periodic-dispatch    launch due children of periodic jobs (package periodic)
//	drainer              migrate allocs off draining nodes (package drainer)
//	deployment-watcher   deployment health, promotion, auto-revert (package deploywatch)
//	scheduler-config     apply the scheduler configuration: PauseEvalBroker pauses deliveries
//	plan-applier         the plan applier (package planapply)
//
// followed by the duties the server's wiring supplies (Config.Extra): the
// keyring's KEK hand-over and rekeyer (Loop: production only) and the
// cluster's member reconciliation and autopilot (Background: goroutines
// in both modes, never stepped). The same table drives both modes: in
// production each duty is a goroutine that waits for its wake and steps;
// with Config.ManualDuties (the deterministic simulator) nothing waits,
// the caller runs DutySteps in order, and periods and deadlines become
// timers on the manual clock.
//
// Node writes ask it which of their node-update evals a waiting eval of
// the same job already covers (CoalesceNodeEvals, WriteUncovered); the
// node endpoints reset and clear heartbeat timers (Heartbeats).
//
// The duties read the state store and write only through raft, by the
// narrow writers Server declares (evals, node status, a raft entry); they
// never call an endpoint. The clock, IDs and randomness are injected
// (Config.Clock, NewID, Rand).
//
// # Leadership
//
// The server's leadership monitor (package server, leader.go) issues a raft
// barrier on winning an election, then calls Establish and starts the
// duties, each on a context that ends when leadership does; on losing it,
// the duties stop, Revoke disables and flushes every component, and plans
// waiting in the queue fail, so their workers nack. A new leader answers
// nothing before its barrier has applied. Invariant 4 of docs/design.md (no
// eval lost across a leader change) rests on restoreEvals.
//
// # The duties in detail
//
// Reapers (reapers.go, blocked_stopped_job.go): failed evals (delivery limit
// or scheduler failure; not those whose FailureKind is wrong-type) get one
// delayed failed-follow-up eval (new.PreviousEval = old.ID, old.NextEval =
// new.ID) written with the failed eval in one entry; superseded evals the
// broker reports cancelable are canceled in batches; duplicate blocked evals
// are canceled; blocked evals of a stopped or purged job are canceled at
// once (description DescJobStopped): the job-deregister eval takes them out
// of the tracker, and a blocked eval written for, or restored with, a
// stopped or missing job is canceled too, never tracked. Evals blocked by
// max-plan-attempts are retried every minute (unblock-failed).
//
// Core GC (core_gc.go, core_gc_acl.go, core_gc_services.go): _core GC evals
// (trigger scheduled) every 5 minutes; CoreScheduler deletes terminal evals
// older than 1 h (with their terminal allocs), purges stopped jobs older
// than 4 h, deletes expired ACL tokens, and native service rows whose alloc
// stopped or vanished or whose node is down. Eval deletes (GC, and DELETE
// /v1/evaluations by IDs or by a filter) are written by the server's
// evalDeleter in raft entries of at most 1,024 IDs (about 13 ms of apply
// each; package state measures why), a big eval's allocs spanning entries
// before the eval itself; each job's allocs are read once per pass. The
// core scheduler writes through the local raft, so only the leader's
// workers run it: a follower's workers never ask the leader for `_core`
// evals (package server, remoteSchedulers; Nomad forwards the writes
// instead).
//
// Heartbeats (heartbeat.go, heartbeat_disconnect.go): one timer per node on
// the injected clock. TTL = max(min_heartbeat_ttl, nodes /
// max_heartbeats_per_second) plus random stagger; a node silent for TTL +
// grace is marked down (its node-update evals in the same entry), or
// disconnected when a live alloc on it tolerates a disconnect (the timer is
// then re-armed for the longest lost_after, after which the node goes down).
// A new leader re-arms every live node's timer for the longest TTL a leader
// hands out at the current node count (FailoverTTL: twice the base, the
// stagger's top) plus the grace (a disconnected node's with what is left of
// its window). A down node that heartbeats returns to ready, a disconnected
// one with reconnect evals (one per job with an alloc on it): the node
// endpoints reset and clear the timers.
//
// Deployment watcher (deployments.go, package deploywatch): on each change
// of a running deployment (it reads and watches the running index of
// deployments, so finished ones cost it nothing) or progress deadline, one
// step decides per running deployment; the leader writes each decision with
// its eval in one entry (applyDeploymentAction). A write that fails changes
// no deployment, so no watch would wake the watcher: it forgets that
// deployment's step and steps again after 1 s (deploymentRetry), eval
// included.
//
// Drainer (drainer.go, package drainer): the leader writes each step's
// migration marks with one node-drain eval per job in one entry
// (applyDrainActions), and ends finished drains (the node stays ineligible).
//
// Periodic dispatch (periodic_dispatch.go, package periodic): it reads and
// watches the jobs table's periodic index, which holds only enabled periodic
// parents, so other job writes do not wake it. Each enabled periodic parent
// launches at its next cron time (time zone aware): child
// parent/periodic-<unix> and its periodic-job eval in one entry
// (LaunchPeriodic; POST /v1/job/:id/periodic/force too). Counting from the
// submit time and skipping existing children makes a leader change neither
// lose nor repeat a launch; after missed launches (no leader for a while)
// only the latest one runs, found by a binary search over the missed
// interval however long it is (latestDue); prohibit_overlap holds a launch
// while a child lives.
//
// Node-eval coalescing (node_eval_coalesce.go) is the one exception to rule
// 1 of docs/design.md (a change and its evals in one entry): on design.md's
// scaled flap it cuts evals written from ~10,000 to ~150 (sim's
// TestScale_FlappingCluster).
package leader
