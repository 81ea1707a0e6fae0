// Package client is the client agent core: it fingerprints the machine
// into a Node (with a node ID kept in the data dir across restarts),
// registers it with the servers and heartbeats within the TTL they hand
// out, re-registers when the fingerprint changes, pulls its allocations
// with blocking queries, runs each in an alloc runner, and reports client
// status and task states back in batches. Its state (allocs, task states,
// driver handles) lives in a bbolt file so a restarted client re-attaches
// to the tasks it left running.
//
// It reaches the servers only through the Servers interface, so it never
// imports the server side (the lead's RPC adapter implements it).
//
// # Loops
//
// client.New fingerprints the machine, loads its bbolt state
// (data_dir/client: allocs, task handles, task states), re-attaches alloc
// runners to still-running tasks (Driver.Recover), then registers over RPC
// (Servers, implemented by rpcclient) and runs three loops: heartbeats every
// TTL/2 plus jitter (re-register on "node not found", matched with errors.Is
// on structs.ErrNodeNotFound), re-fingerprint every 30 s (re-register on a
// change, fingerprint.Diff), and the alloc sync (allocsync.go): a blocking
// pull of the AllocModifyIndex of each of the node's allocs, then a fetch
// of only the allocs whose index moved (in batches of 256), as Nomad's
// client does (internal/server's BenchmarkGetClientAllocs: a node with
// 10,000 allocs, one changed, went from 4.7 MB and ~80 ms a pull to
// 0.39 MB and ~5.5 ms); it starts new allocs, stops ones the server stopped or evicted
// (kill_signal, kill_timeout, poststop tasks, then complete), applies
// in-place updates and destroys allocs the server no longer lists.
// Client-side alloc state goes back in batches (batcher.go: 200 ms of the
// clock, newest update per alloc wins, one UpdateAllocs call). The client
// lists several servers and fails over on connection errors; every server
// closes its connections at shutdown so clients notice at once.
//
// Disconnects (disconnect.go): while heartbeats reach no server, allocs
// whose group has disconnect.stop_on_client_after (or
// stop_after_client_disconnect) are stopped once that long has passed since
// the last successful heartbeat or registration; an alloc the servers marked
// unknown is reported again with its real status.
//
// # RPC
//
// The client's own methods (wire types in structs/client_rpc.go):
// Node.Register (returns the heartbeat TTL), Node.UpdateStatus (heartbeat,
// or another status), Node.GetClientAllocIndexes (blocking pull of the
// AllocModifyIndex of each alloc the servers hold for the node, answered
// only when one of them changes or is collected), Alloc.GetAllocs (the
// node's allocs by ID, with their jobs), Node.UpdateAlloc (a batch of
// client alloc updates; newly failed allocs get one alloc-failure eval per
// job), ServiceRegistration.Upsert /
// DeleteByID (the native service rows of the node's allocs),
// WorkloadIdentity.Sign (the identity tokens of an alloc's tasks),
// Variables.Read / List and ServiceRegistration.GetService / List (the
// templates' blocking reads, with the task's token). Servers still answer
// Node.GetClientAllocs, the full pull (every alloc with its job) of
// clients of earlier versions; servers are upgraded before clients, so a
// client does not fall back to it. Every call after
// register carries the node's SecretID; registering presents client {
// node_registration_token } (the servers' server { node_registration_token },
// or with ACLs on an ACL token with node write), else, in an agent that
// runs a server too, that server's agent node credential
// (Config.AgentNodeCredential). A refusal of that token
// (structs.ErrNodeRegistrationDenied) is logged at error level once per
// distinct refusal, naming the setting to fix; registering retries with
// backoff.
//
// # Native services and host volumes
//
// The alloc runner hands its current set of services (service { provider =
// "nomad" }) to the client (allocrunner/services.go: a task's services while
// it runs, the group's while every long-running task runs, none once the
// alloc stops), and service_registrar.go upserts / deletes the difference
// (the server fills node, datacenter, namespace and job from its own records
// and refuses another node's allocs). Rows carry the Health their checks
// gave them. Client host_volume "name" { path read_only } blocks are
// fingerprinted into Node.HostVolumes (host_volumes.go; missing directories
// are left out); tasks mount them through taskrunner/volumes.go (exec binds
// them into the chroot, docker as binds, :ro when read-only, raw_exec as
// symlinks under the task dir).
//
// # Migrating ephemeral disks
//
// ephemeral_disk { migrate = true } with a previous alloc on another node
// (migrate.go): the new alloc's runner, before its tasks start, asks the
// servers (Node.PrevAllocMigration, a blocking query) until the previous
// alloc is terminal, then downloads /v1/client/allocation/:id/snapshot from
// that node's agent with the migrate token the servers gave it
// (structs.MigrateToken, an HMAC keyed with the previous node's secret,
// checked there by ValidMigrateToken), unpacks the tar into a staging tree
// beside the alloc dirs (allocdir.Unpack: only alloc/data and the tasks'
// local/, clean relative names, symlinks that never climb, os.Root writes,
// the disk's size as limit) and moves it in. A down previous node or a
// collected previous alloc leaves the dirs empty, as in Nomad.
//
// # Shutdown
//
// The state store (package client/state) writes through bbolt's Batch, so
// thousands of runners writing at once (start, drain, shutdown) share
// transactions and fsyncs; Destroy (dev agents, tests) drops the writes of a
// client whose state dies with it. New allocs are persisted in one write
// (PutAllocs). Shutdown stops runners in parallel and detaches log tailers
// without a last copy (the next client resumes from the saved offset); a
// -dev agent removes its temporary data dir in parallel while the server
// stops, bounded by the shutdown deadline. BenchmarkClientShutdown measures
// stopping a client with N allocs, up to 50,000 (-stopprofile profiles the
// stop alone).
//
// # Subpackages
//
// allocrunner (one alloc, its checks and deployment health), taskrunner (one
// task: artifacts, templates, environment, restarts), logmon (log capture
// and rotation), state (the bbolt store), drivers (task drivers),
// fingerprint (machine facts as node attributes and resources, Nomad's
// attribute names), hoststats, checks, allocdir, rpcclient (the client's
// side of the internal RPC, failing over between servers).
//
// internal/e2e runs real agents (and a real drover agent subprocess for the
// SIGKILL test) through the official client: raw_exec logs, a docker image
// built FROM scratch, exec isolation and OOM, restart then reschedule
// elsewhere, job stop killing everything, client crash and re-attach, missed
// heartbeats.
package client
