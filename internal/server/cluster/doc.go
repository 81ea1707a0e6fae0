// Package cluster is one server's place in the cluster: its stable
// identity, raft (stores, configuration, transport), gossip membership,
// bootstrap, the leader's member reconciliation, autopilot, and the
// server-to-server RPC pool with the fault harness's peer filter. It sees
// the server only through Host (the FSM is handed to New); package server
// holds one *Cluster and calls its exported API (the Cluster.* endpoint,
// forwarding, remote workers, the leader's duties).
//
// Lifecycle: LoadOrCreateNodeID, then New (opens raft's stores, starts raft
// on the FSM, bootstraps a single-voter cluster when the server is meant
// to form one), then Start once the Host can take membership events
// (gossip, when configured, and autopilot over it). On shutdown: Leave,
// wait for the Host's goroutines, then Shutdown (raft, transport, pool,
// stores). The leader runs ReconcileMembers (step: ReconcileOnce) and
// RunAutopilot as duties on a context that ends when leadership does;
// both return at once without gossip.
//
// Raft (raft.go): hashicorp/raft, protocol 3. Servers are known by a
// stable ID, a UUID kept in data_dir/server/node-id (node_id.go), never by
// address, so a server restarted on another address or port keeps its
// place. A dev server runs a single voter with in-memory stores and fast
// timeouts; its log (dev_log.go) asks raft for a snapshot by bytes, once
// its entries hold half the last snapshot's size (at least 32 MiB), and
// keeps 128 entries behind it; the snapshot is kept in 1 MiB chunks
// (dev_snapshots.go). Otherwise raft lives under data_dir/server/raft: the
// log and stable store (raft_logstore.go: raft-wal in wal/ for a new data
// dir, raft-boltdb's raft.db for one created with it; a data dir keeps its
// backend) behind a 512-entry log cache, and file snapshots. Raft runs
// over the rpc port (raft_layer.go: the RPC accept loop hands RaftLayer
// every connection whose first byte is structs.RPCRaftByte), or over an
// in-memory transport for a lone in-process server (tests, sim, bench).
// Raft's ServerAddressProvider resolves IDs through gossip, so a moved
// server is reached before the configuration catches up.
//
// Gossip (cluster.go): hashicorp/serf on the serf port (4648) with Nomad's
// tags: role=nomad, region, dc, build, vsn, raft_vsn=3, id (the raft ID),
// rpc_addr and port (the rpc address, which is also the raft address),
// expect (bootstrap_expect). The serf snapshot under data_dir/server/serf
// lets a restarted server rejoin by itself. A stopped server does not
// leave (Nomad's leave_on_terminate = false): it is failed until it
// returns, and its workers' held evals are handed back (Host.ServerFailed).
//
// Gossip encryption (gossip_keyring.go): server.encrypt seeds memberlist's
// keyring, saved to data_dir/server/serf.keyring (Nomad's file), which
// wins over server.encrypt on restart; serf's KeyManager installs, uses
// and removes keys on every member (/v1/agent/keyring/*), each member
// rewriting its file.
//
// Bootstrap (bootstrap.go): once bootstrap_expect alive servers agree on
// the number, each asks the others (Status.Peers) whether a cluster
// already exists; if none does, each bootstraps raft with the same
// configuration (every seen server, all voters). A server with raft state
// never bootstraps again.
//
// Reconcile (reconcile.go): on every membership event and every 30 s,
// alive servers become raft peers at their gossiped address (a known ID at
// a new address is updated in place; a new one goes through autopilot as a
// non-voter and is promoted once stable); servers that left are removed.
//
// Autopilot (autopilot.go, hashicorp/raft-autopilot): server health from
// each server's Cluster.ServerStats (RaftStats), promotion after
// ServerStabilizationTime, dead-server cleanup (forced out of gossip, then
// reconcile removes it). Its configuration is raft-stored (entry type 92,
// the one-row autopilot_config table, snapshot record tag 92), read
// through Host.StoredAutopilotConfig on every pass; until an operator sets
// one, InitialAutopilotConfig (the agent's block, else Nomad's default) is
// in force and nothing is stored.
//
// Partitions (peer_filter.go): with Config.PeerFilter (the fault harness;
// nil in production) a peer is reachable, refused or dropped. Refused:
// raft dials to it fail and pooled raft connections break at their next
// read or write, PeerRPC (every server-to-server RPC) refuses the dial and
// cancels an in-flight call. Dropped (a real partition): dials hang until
// their timeout, and open connections (raft's, gossip streams, the RPC
// pool's sessions, which dial through the filter) hold reads and keep
// writes back until the cut heals or a deadline passes. Either way serf
// runs on a memberlist transport that drops UDP packets to and from a cut
// address. LeaderChanged (leader_watch.go) turns raft's leader
// observations into a channel, so forwarding notices a new leader while
// it waits on the old one.
//
// # Raft stores in detail
//
// BenchmarkDevServerEvalHeap (internal/bench) measures the dev server's heap
// per stored eval, with the log's and the snapshot's share: the dev log
// keeps a fraction of the state it built, and its snapshot store keeps the
// FSM's immutable state snapshot unwritten (dev_snapshots.go: it is
// serialised only when an operator's snapshot save opens it; the written
// copy cost as much heap as the allocs in it). A non-dev log store sits behind a
// 512-entry log cache with file snapshots, so a restart replays what was
// acknowledged. raft-wal (append-only segment files, one fsync per batch of
// entries) is the backend of a new data dir; raft-boltdb's raft.db (bbolt,
// two fsyncs per batch) that of a data dir created with it or with server {
// raft_logstore { backend = "boltdb" } }. Asking for the other backend than
// the data dir's refuses to start and says to remove the server and empty
// its data dir, rather than starting on an empty log. raft-wal is v0.4.2 or
// later: v0.4.0 left a truncated tail segment sealed without its index block
// (raft truncates a deposed leader's uncommitted tail), and the next start
// panicked (drover chaos found it: pause the leader, then restart it).
// raft-wal (with the piece of etcd's fileutil it preallocates segments with)
// adds 0.4 MB to the binary (37.12 -> 37.53 MB).
//
// # Membership and operator surface
//
// server_join { retry_join retry_interval retry_max } joins at start; PUT
// /v1/agent/join and drover server join by hand. A member that restarts on
// another address takes its name back after DeadNodeReclaim. Autopilot's
// stored configuration is set with PUT /v1/operator/autopilot/configuration
// (?cas=N applies only if the stored ModifyIndex is N, else answers false
// and changes nothing; ModifyIndex 0 means none stored, so forming a cluster
// writes no extra entry; a negative or unparsable duration is a 400 naming
// the field) and read with GET; GET /v1/operator/autopilot/health; DELETE
// /v1/operator/raft/peer, PUT /v1/operator/raft/transfer-leadership; GET
// /v1/agent/members, PUT /v1/agent/force-leave; CLI server
// members|join|force-leave, operator raft
// list-peers|remove-peer|transfer-leadership, operator autopilot
// get-config|set-config|health. Dead-server cleanup forces a failed server
// out of gossip, then reconcile removes it.
//
// # Partitions in the fault harness
//
// The minority side is the leader plus, with 5 servers, one follower. Each
// agent re-reads its -partition-file (the rpc and serf addresses of every
// server across the cut, and the word "drop" for a dropped cut) every
// 100 ms and cuts all server-to-server traffic to them (Config.PeerFilter). Every server-to-server RPC (forwarding to
// the leader, remote workers' dequeues and acks, autopilot's stats,
// bootstrap's peer check) goes through PeerRPC, so the cut covers a 5 s
// blocking dequeue in flight too. Both sides are cut, so no connection
// crosses in either direction. See package chaos for what the harness
// checks.
package cluster
