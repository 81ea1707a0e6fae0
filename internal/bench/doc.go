// Package bench measures the whole server end to end: a real dev server
// (raft in memory, FSM, state store, broker, workers, plan applier) with
// simulated nodes registered in-process (Server.RegisterNode: no heartbeat
// timer), loaded with Nomad's benchmark shapes. drover bench and the Go
// benchmarks of this package (BenchmarkE2E_*) both call it.
//
// # Scenarios
//
// Scenarios a-g (scenarios.go, scale.go, memory.go, backlog.go,
// heartbeat.go): a-c and f split eval latency (p50/p99) into queue wait,
// scheduling and applying from each eval's stored timeline (latency.go; an
// eval finished by its plan leaves applying at the plan entry's time, when
// the leader accepted it, so applying then excludes the raft commit).
// -scenario d measures the state store's memory per alloc, node and eval
// (package state). -scenario f -nodes 10000 (100 jobs x 10,000 allocs)
// reports time to place, eval p99, live heap, RSS, snapshot size and
// save/restore times (the restore after the server shut down, as a
// restarted server restores). -scenario g measures the process's CPU while every
// node heartbeats at the TTL the server hands out (each node's second beat
// at a random point of its first TTL, as in a cluster whose nodes started at
// different times, so even a window shorter than a TTL sees the steady
// rate). BenchmarkDevServerEvalHeap (evalheap.go) measures the dev server's
// heap per stored eval.
//
// -scenario r -nodes 5000 (reads.go) places 200 jobs x 250, then serves the
// agent's HTTP handler (NewHTTPServer behind WithGzip, as the agent's
// listener) on loopback to 20 clients, each cycling through /v1/jobs,
// /v1/job/:id, /v1/allocations, /v1/nodes and a blocking query whose index
// has passed, for 20 s: reads/s, p50/p99 and bytes per reply for each
// endpoint, and the process's CPU per read (server and load driver share
// the process and its cores). The clients read each body to the end and
// decode nothing. In this shape a whole /v1/allocations reply is 32 MB
// (50,000 allocs), and moving those bytes through loopback is nearly all
// of the CPU. -read-gzip makes the clients ask for gzip as the official
// client does (about 4.4 MB on the wire; counted there, not unzipped), and
// -read-page N makes the alloc and node listings ask per_page=N, each
// client walking the pages with next_token (N=700 gives about 450 KB per
// alloc page).
//
// # Real servers
//
// drover bench -servers 3 (servers.go) runs the scenarios on real servers
// (on-disk raft, loopback TCP) in one process. Every raft commit then waits
// for a log fsync on the leader and on a follower. -raft-timings prints
// raft's own summaries after the table: the leader's log write, a
// follower's, the replication round trip, the commit and the FSM apply.
// -serial-plans turns the plan applier's pipeline off, -schedulers N sets
// the workers per server (default 2), -cpuprofile FILE profiles the whole
// run (each server's goroutines carry the pprof label server=NAME, and the
// bench names the leader, so go tool pprof -tags FILE splits the CPU by
// server), -cpuprofile-placing FILE profiles only the placing window of
// scenarios a-c and f (Spec.Measuring: from the first job submitted to the
// last eval complete, so registering the nodes is left out), -count N runs
// each scenario N times and adds a row with the median rate (runs on a
// shared machine vary by a quarter or more), and
// -trace FILE records an execution trace (go tool trace -pprof=sync|sched
// FILE shows where goroutines wait). With the plan pipeline, plans no longer
// queue behind the commit, and raft's buffered apply channel (BatchApplyCh)
// lets the applier keep proposing while the leader fsyncs, so one fsync
// commits every plan proposed meanwhile. A worker whose plan finishes its
// eval (the usual case) does not wait for that plan's commit (package
// server/planapply).
//
// Read a -servers 3 figure as three servers sharing one machine's cores:
// each applies every raft entry (decoding each plan's allocs and inserting
// them into its own state store), and each has its own raft log to fsync.
// The "CPU ... cores (GC n%)" note of a placement row is the process's CPU
// over the measured window and the runtime's estimate of the garbage
// collector's part of it. Near the machine's core count, the run is
// CPU-bound. Well under it, the run waits on round trips and fsyncs, and
// more workers (-schedulers) would raise the rate. On 2 cores, scenario a
// runs at about 1.7 cores, and its evals hardly queue (p50 about 15 ms): the
// workers keep up with the 8 submitters, each of which waits for its job's
// register entry to commit. In a whole-run profile the leader takes about
// 41% of the samples and each follower about 20-22%. The rest, about 17%, is
// unlabelled: the GC's mark workers (the row's GC share is 10-12%) and the
// simulated submitters.
//
// Where the steady state's CPU goes (-cpuprofile-placing, five runs of
// scenario a on 3 servers merged, 2026-11-28, about 245 µs of CPU per
// placement for all three servers): applying entries 34% (every server
// applies every entry: state store writes 27%, of which memdb/radix inserts
// 16% with their watch channels and writable-node caches, node_usage rows
// 9%; decoding 6%; events 1%), scheduling workers 22% (followers run them
// too), raft without the FSM about 6% (the WAL 5%), the plan applier 7%,
// RPC between servers 3%, syscalls 7%, and the GC's mark workers 11%. The
// leader takes 39-46% of the labelled samples, each follower 17-27%. What
// a server pays per entry is measured without raft by the fsm package's
// BenchmarkFSMApplyBenchEntries (entries of such a run, applied one by one
// and in batches of 8).
//
// # Collector target
//
// A process that runs a server (drover agent with server.enabled, and drover
// bench, whose servers run in-process) sets Go's GC target to 200 unless
// GOGC is set (server.TuneGC, server.ServerGCPercent; the agent logs the
// target it runs with). A server's heap is mostly its state store: large and
// long-lived, while every write allocates radix-tree paths that the next
// writes replace. At Go's default of 100 the collector took 14-15% of
// scenario a's CPU on 3 servers; at 200 it takes 10%, and the rate rose
// 7-21% in alternating runs. The price is memory: the heap may grow to 3
// times the live data instead of 2 (scenario a's peak RSS for three servers
// in one process, 344 MB -> 483 MB). For big heaps the growth is capped:
// after each collection the target drops so the heap grows by at most
// ServerGCHeadroom (1 GiB) beyond what was left live, down to
// ServerGCMinPercent (25); scenario f's million allocs leave about 2 GB
// live, where 200 let the process reach 6.3-7 GiB RSS. Set GOGC=100 (or
// lower) where memory matters more than throughput (GOGC turns the cap
// off too); a client-only agent keeps Go's default.
package bench
