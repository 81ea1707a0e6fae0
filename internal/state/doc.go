// Package state is the server's state store: typed reads and writes over
// go-memdb, watch sets for blocking queries, and raft snapshot/restore.
//
// Every write takes the raft index that carries it, and any timestamp it
// stamps is decided before the entry was proposed, so applying the same log
// on every server yields the same state.
//
// Objects returned by reads are shared with the store and with other
// readers: callers must not modify them. Copy first (structs' Copy methods)
// and write the copy back through raft.
//
// A Batch (batch.go) runs consecutive writes in one memdb transaction (the
// FSM applies a raft commit's entries in one): each write keeps its index
// and bookkeeping and hands the commit observer its own changes after the
// commit; a failed write poisons the batch, which its owner aborts.
//
// # Tables
//
// go-memdb tables (schema.go): jobs (by id; system and sysbatch jobs also by
// type, periodic parents in periodic), job_version (last 6 versions per job; a
// tagged version outlives the cap), nodes (by id, secret_id, and draining
// nodes only), allocs (by id, job, node for terminal allocs only, deployment), evals (by
// id, (namespace, job, terminal), and live status only), deployment,
// scheduler_config, scaling events and job submissions (job_history.go), and
// index (the raft index that last modified each table). Also namespaces
// (namespaces.go: default is built in, read until someone writes it, so
// every server has it without a raft entry), node pools (node_pools.go: all
// and default built in, never stored), acl_policy, acl_token (by accessor,
// unique by secret), acl_role (unique by UUID and by name), the index-table
// row acl_token_bootstrap, the one-row autopilot_config (singleton_config.go
// serves it and the scheduler configuration alike), service_registrations,
// variables and root_keys. node_usage (node_usage.go) is derived: one
// structs.NodeUsage per node with live allocs (the allocs in ID order, summed
// resources, memory_max, reserved-core and host-port claims), updated by
// every alloc insert and delete in the same transaction (writeTxn.insert and
// remove), rebuilt by Restore, never persisted and without an index row; the
// schedulers rank a node from it instead of reading its allocs, one row at a
// time (NodeUsage) or, for a large eval, all in one scan (EachNodeUsage),
// and it is how a node's live allocs are read (AllocsByNodeTerminal,
// AllocsByNode): they have no node index entry of their own.
//
// A deployment written from an older copy (a scheduler's plan carries the
// deployment as its snapshot had it) keeps the stored alloc counters, any
// promotion, and any status other than running with its description
// (deployments.go): the promote, pause and status writes committed after
// that snapshot stay decided. The store counts alloc health into deployments
// (deployment_health.go): it is the one writer of those counters. An
// operator's manual health (SetDeploymentAllocHealth, alloc_client.go) goes
// through the client-report path, so it counts the same way.
//
// Job status (pending/running/dead) is derived in the store whenever a job,
// its evals or its allocs change (job_status.go: one index lookup for "has a
// live eval", never a read of the job's eval history).
//
// A plan whose job was purged, purged and re-registered, or stopped by a
// newer version since it was computed (structs.PlanJobGone) has its job
// write, placements, preemptions and new deployment stripped inside the
// commit's transaction (plan_job_gone.go), so a purge racing the commit
// cannot bring the job back. The commit also sets NextAllocation on the
// alloc each new placement replaces (PreviousAllocation).
//
// A node marked down or deregistered loses its native service rows in the
// same transaction (nodes.go).
//
// # Reads
//
// Reads take a memdb.WatchSet so blocking queries can wait on exactly what
// they read. Paged listings (paging.go: EvalsPage, AllocsPage, JobsPage,
// NodesPage, DeploymentsPage) start a LowerBound (or ReverseLowerBound)
// iterator on the id index at the page's token and stop after PerPage+1
// matching items; they watch the table's index entry. The caller's filter is
// applied while the page is cut, so a page costs what the page costs.
// Snapshot() gives a point-in-time reader.
//
// # Snapshots
//
// Persist / Restore serialise every table for raft snapshots (persist.go;
// record tags: 1 index, 2 jobs, 3 job versions, 4 nodes, 5 allocs as written
// before compaction, 9 and 10 compact allocs, 6 evals, 7 deployments, 8
// scheduler configuration, 20 namespaces, 30 scaling events, 31 job
// submissions, 32 node pools, 40 ACL policies, 41 ACL tokens, 60 service
// registrations, 61 variables, 62 root keys, 92 autopilot configuration, 94
// ACL roles; Restore accepts records in any order and still reads tag 5).
// Restore swaps in a new memdb and closes AbandonCh so blocked readers
// re-run. Snapshots encode structs as arrays of their fields, as entries
// and RPCs do (see package structs), so their fields are only ever
// appended (testdata/snapshot_fields.golden); Restore still reads
// snapshots of the first format, whose structs are maps keyed by field
// name (testdata/snapshot-v1.msgpack).
//
// # Memory at scale
//
// The store is built to hold a million allocs on 10,000 nodes (drover bench
// -scenario d measures: about 1.4 KiB per alloc, 1.4 KiB per node, 1.8 KiB
// per eval, index entries included):
//
//   - Every memdb index entry costs ~450 B (go-immutable-radix node, leaf,
//     two watch channels, key), so rows carry only the indexes no other can
//     serve: a node's live allocs are its node_usage row, its terminal
//     ones node_terminal, a namespace's allocs and evals filter id,
//     AllocsByEval filters the eval's job's allocs, terminal evals are not
//     in status, non-draining nodes not in draining.
//   - alloc_compact.go: allocs reference the stored job version (never a
//     copy); allocs of a group written together share one AllocatedResources
//     per distinct value and the Metrics of the group's last placement (the
//     plan applier sends metrics only on that one); repeated strings are
//     interned (intern.go, bounded); changes to a stored alloc copy only its
//     top level.
//   - node_compact.go: nodes share equal attribute/meta maps, resources and
//     drivers with recently stored nodes; node updates copy shallowly.
//   - Snapshots (persist_allocs.go) write allocs without what they share:
//     the job by version, metrics and resources by reference to a record
//     written once; Restore rebuilds the sharing and commits every 512 rows
//     (a radix transaction replacing more than 8,192 nodes of one index
//     walks the whole index at commit, which made restores quadratic at
//     4,096).
//   - BenchmarkDeleteEvalsEntry measures one eval-delete entry's apply time
//     by size (go-immutable-radix walks the whole tree at commit past ~8,000
//     changed nodes per index, so the cost jumps above ~2,000 IDs); the
//     server writes eval deletes in entries of at most 1,024 IDs (about 13
//     ms of apply each).
//
// drover bench (package bench) measures the store under load: -scenario f
// -nodes 10000 (100 jobs x 10,000 allocs) reports time to place, eval p99,
// live heap, RSS, snapshot size and save/restore times.
package state
