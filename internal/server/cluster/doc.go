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
// Partitions (peer_filter.go): with Config.PeerBlocked (the fault harness;
// nil in production) raft dials to a cut peer are refused and pooled raft
// connections break at their next read or write, PeerRPC (every
// server-to-server RPC) refuses the dial and cancels an in-flight call once
// its peer is cut, and serf runs on a memberlist transport that drops UDP
// packets to and from, and refuses TCP streams to, a cut address.
package cluster
