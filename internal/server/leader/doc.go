// Package leader is the server's leader role: what a server does only
// while it leads the cluster.
//
// On Establish it enables the plan queue, eval broker and blocked-evals
// tracker, rebuilds them from the state store (route: pending evals to the
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
package leader
