// Package fsm applies raft log entries to the state store. Apply is
// deterministic: every ID, timestamp and random choice was made by the
// proposer and travels inside the entry.
//
// # Entries
//
// Apply dispatches on the entry's type byte (structs.MessageType,
// structs/encoding.go; values are persisted: append only, never renumber) to
// one applier per entry type (apply.go, apply_acl.go, namespaces.go,
// native.go):
//
//	1-17   jobs, evals, nodes, allocs, plan results, deployments, scheduler configuration
//	40-44  ACL policies and tokens, the ACL bootstrap
//	50-51  namespaces
//	60-63  native service registrations, variables, root keys
//	80-83  job stability and version tags, node pools
//	92     autopilot configuration
//	94-95  ACL roles
//	96     root key delete
//	98-99  root key state, variables rekey (a full key rotation)
//
// A job register writes the job and its job-register eval in one entry (the
// eval's JobModifyIndex is the entry's index); a deregister stops or purges
// the job and writes its job-deregister eval in one entry. Checks that
// depend on the state an entry meets run here, against that state:
// variables' CAS and lock checks (lease expiry judged with the proposer's
// timestamp in the entry), namespace deletes refused while jobs remain,
// roles naming missing policies.
//
// Entries are msgpack with every struct written as an array of its fields
// (see package structs), so a field's position is part of the format. Plan
// results decode through structs.DecodePlanResults (the codec's result
// without its reflection; every other type through structs.Decode).
// BenchmarkFSMApplyBenchEntries applies entries a 3-server drover bench
// committed (testdata/bench-entries.bin.gz: job registers and plan results
// at their raft indexes) over 5,000 nodes, one by one and in batches of 8.
// TestEntryFields_OnlyEverAppended walks every struct reachable from an
// entry type and holds its fields to testdata/entry_fields.golden
// (internal/testutil/wirefields; -update records appended fields and refuses
// anything else).
//
// # Batches
//
// The FSM is a raft.BatchingFSM (batch.go): the entries of one raft commit
// apply in one state store write transaction (state.Batch), so every
// server, followers included, pays memdb's commit and its copied tree
// nodes once per batch. Each entry still writes at its own index with its
// own bookkeeping; appliers read the batch's uncommitted state; sink calls,
// event batches and the applied index wait for the commit and then run
// entry by entry in order. An entry whose write fails cannot be undone
// inside the transaction, so such a batch is aborted and applied again one
// entry at a time. TestFSM_ApplyBatchEqualsApplyOneByOne and
// FuzzApplyBatch hold batched apply to one-by-one apply: responses, sink
// calls, events and the snapshot (canonically encoded) must be identical.
//
// # The eval sink
//
// Written evals are handed to an EvalSink (on the leader, package leader's
// sink: pending to the broker, blocked to the tracker, failed to the
// follow-up reaper, each with the worker's broker token when a worker
// re-blocks the eval it holds), and node registrations, status, eligibility
// and drain changes and allocs turning terminal report CapacityChanged,
// which unblocks by the node's computed class and by node ID. The sink runs
// inside Apply, so it never blocks or writes to raft.
//
// # Events
//
// Events come from what the FSM applied, so every server publishes the same
// stream (events.go). The state store takes a commit observer
// (SetCommitObserver); with one installed, each write transaction tracks its
// memdb changes and hands them over after commit. The FSM collects the
// changes of the entry it is applying (an entry may commit several writes)
// and, once the entry is applied, turns them into one structs.Events batch
// at the entry's index (publishEntryEvents): each changed job, eval, alloc,
// deployment or node row is one event with Nomad's topic (Job, Evaluation,
// Allocation, Deployment, Node), key (the object's ID), namespace, filter
// keys (an eval's or alloc's job and deployment, a deployment's job) and the
// object as payload. As in Nomad, the event type is the entry's
// (JobRegistered, JobDeregistered, JobBatchDeregistered, EvaluationUpdated,
// AllocationUpdated, AllocationUpdateDesiredStatus, PlanResult,
// DeploymentStatusUpdate, DeploymentPromotion, NodeRegistration,
// NodeDeregistration, NodeEvent, NodeDrain, NodeEligibility); a purged job
// is JobDeregistered with Deleted: true, a deleted eval EvaluationDeleted;
// deleted allocs and bookkeeping tables (index, job versions, scheduler
// config) give none. Every service row written or removed is a
// ServiceRegistration / ServiceDeregistration event on the Service topic
// (keyed by service name, filter keys job and alloc). The batches go to the
// server's event broker (package server/stream).
//
// # Snapshots
//
// Snapshot and Restore are the state store's Persist and Restore (package
// state). A user snapshot is restored into a scratch store by the server
// before raft sees it: raft panics when the FSM refuses one.
package fsm
