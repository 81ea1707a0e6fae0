// Package chaos is the fault harness behind drover chaos: it runs 3 or 5
// real drover agent server processes on 127.0.0.1 (-fast-gossip, and
// -partition-file for a partition) with simulated client nodes over the real
// client RPC and one real client agent (clients.go: raw_exec on, -clients),
// drives load (six writers registering, updating, scaling, stopping, and
// purging then at once registering again mock jobs through random servers;
// a seventh doing the same with raw_exec jobs, real sleep processes, on the
// real client; node flaps), injects one fault per round, and after every
// round (load paused) checks the cluster.
//
// Faults: SIGKILL of the leader or a follower; SIGSTOP of the leader for 3 s
// (past the 1 s election timeout); a partition that isolates the leader on
// the minority side (partition.go; the cut itself is package
// server/cluster's peer filter), refusing connections (partition-leader)
// or dropping packets silently as a real network does
// (partition-leader-drop: dials and reads hang); a restart (of the leader last deposed by a
// pause or partition while it follows, else of a follower: a deposed leader
// truncated its log's uncommitted tail, and that log must open again); a
// node flap; SIGKILL of the real client for 7 s, past its node's heartbeat
// TTL, then its restart (kill-client: the tasks of its allocs that were
// lost or stopped meanwhile must not run on). drover chaos -agent-binary
// runs an older build under the same harness, to see a check fail on it.
//
// Checks (check.go, terms.go): every acknowledged write is on every server
// (once it has applied the highest acknowledged index), no two live allocs
// share a name in a job version, no node is over its CPU or memory, no eval
// is still pending after 90 s, no alloc of a purged job incarnation (job
// gone, or the alloc older than the job's CreateIndex) is still to run and
// no task process of the real clients (found in /proc by NOMAD_ALLOC_DIR
// under the work dir) has an alloc that is terminal or unknown, each after
// 30 s of settling, and (sampled every 50 ms) one leader per raft term.
//
// A sequential writer (seqwriter.go) writes one variable at a time through a
// random writable server with a 2 s request timeout for the whole run; for
// each leader fault the report gives the time to a new leader observed
// (every server naming it), the longest stretch without an acknowledged
// write, and how far beyond the election the first acknowledgement came
// (p50/p99), plus the writer's latency. After a partition also: the majority elects a leader and schedules,
// the old leader steps down, the majority's gossip marks the minority
// failed, and a job register sent to each minority server (a follower
// forwards it to the old leader, or finds none) is refused with 503, never
// acknowledged, and absent after healing; writes the majority acknowledged
// meanwhile are on every server, the old leader included, after healing. The
// simulated clients use the majority's servers only while the partition
// lasts. For each partition the report gives the write gap (the longest
// stretch without an acknowledged write) and how long after the election,
// as the harness saw it, writes were acknowledged again.
//
// go test ./internal/chaos (about 50 s) runs five rounds on 3 servers
// (killed leader, partitioned leader, killed follower, paused leader,
// restart of that deposed leader) and one partition round on 5;
// -chaos.rounds/-chaos.servers/-chaos.faults all or drover chaos -rounds run
// longer ones.
package chaos
