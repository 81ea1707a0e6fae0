// Package telemetry holds a server's metrics: a Prometheus registry with the
// timings the pipeline observes as it runs, collectors that read gauges only
// when scraped, and the process-wide sink that receives raft's go-metrics.
// Names are Nomad's where Nomad has the metric (dotted in /v1/metrics JSON,
// underscored in the Prometheus exposition); Drover's own start with
// drover_.
//
// A server owns a Metrics (server.Config.Metrics, created if nil): a
// Prometheus registry (github.com/prometheus/client_golang). The agent's
// HTTP layer uses its server's set (a client-only agent makes its own).
// /v1/metrics renders the gathered families in Nomad's JSON summary (gauges;
// counters; histograms as samples with count, sum, mean; names dotted as
// Nomad's) and ?format=prometheus in the text exposition (names underscored:
// nomad.nomad.plan.apply -> nomad_nomad_plan_apply).
//
// Observed as they happen (histograms; Nomad's timings are milliseconds):
// nomad.nomad.plan.submit (worker, submit to result),
// nomad.nomad.plan.evaluate (applier, planapply.Config.OnEvaluate),
// nomad.nomad.plan.apply (a plan entry, proposed to committed and applied),
// nomad.nomad.worker.dequeue_eval,
// nomad.nomad.worker.invoke_scheduler.<type>, nomad.nomad.broker.wait_time
// (pending -> scheduling), nomad.http.request by method and route pattern,
// and Drover's own drover_eval_status_seconds{status} (seconds an eval spent
// in each status and quasi-status, observed when the timeline records the
// next step) and drover_evals_created_total{trigger} (counted from the event
// stream: an eval whose CreateIndex is its batch's index). Raft's own
// go-metrics (nomad.raft.apply, commitTime, leader.lastContact, fsm.apply,
// ...) go through a process-wide armon/go-metrics sink into a shared
// registry that every set gathers.
//
// Read only when scraped (no cost in the pipeline): runtime
// (nomad.runtime.num_goroutines, alloc_bytes, heap_objects, gc_pause_ns,
// total_gc_pause_ns, total_gc_runs, ...), broker and blocked totals,
// per-scheduler nomad.nomad.broker.{ready,unacked,delayed,pending,blocked}
// (label scheduler), nomad.nomad.plan.queue_depth, workers,
// nomad.nomad.heartbeat.active, nomad.nomad.job_summary.* (labels job,
// task_group, namespace), nomad.nomad.job_status.*, and on an agent with a
// client nomad.client.{allocated,unallocated}.{cpu,memory,disk},
// nomad.client.host.memory.* (from /proc/meminfo),
// nomad.client.allocations.running and per task
// nomad.client.allocs.{memory.rss,memory.usage,memory.max_usage,cpu.*}; on
// a server agent, Drover's own drover.http.reply_cache.{bytes,entries} (the
// whole-reply cache of list endpoints now) and {hits,misses,gzips} (counts
// since the agent started). This
// work (mostly the Prometheus client, protobuf and armon/go-metrics' sink)
// adds about 4 MB to the binary (26.98 -> 30.97 MB); chromedp is test-only.
//
// Sinks (sinks.go; the agent's telemetry { } block, Metrics.StartSinks):
// besides the registry every set feeds go-metrics sinks through one
// filtering front (prefix_filter, filter_default): an in-memory sink
// (Nomad's 10 s interval kept a minute) whose last finished interval is
// the JSON form's counters and samples (count, sum, min, max, mean,
// stddev: Metrics.Window), and statsd, statsite (go-metrics' sinks) and
// dogstatsd (DogStatsdSink, written here: go-metrics' needs DataDog's
// client module) when configured. Observations and counts (histograms,
// HistogramVec, CounterVec, Count) reach the sinks as they happen; with a
// network sink the gauges are read and sent every collection_interval
// (without one nothing reads them between requests, as before). Gauges
// carry the hostname after
// their first part (nomad.<host>.runtime...) unless disable_hostname, or
// a host label with enable_hostname_label. Raft's process-wide go-metrics
// reach every started set's sinks as well (raftFanout). Metrics operators
// alert on, under Nomad's names: nomad.rpc.request and
// nomad.rpc.request_error (label method, counted by the RPC listener),
// nomad.autopilot.healthy and failure_tolerance (leader only),
// nomad.nomad.blocked_evals.cpu and memory (cluster totals: Nomad labels
// them by datacenter and class), nomad.nomad.broker.<scheduler>_ready and
// _unacked beside Drover's labelled nomad.nomad.broker.ready{scheduler},
// and nomad.client.allocs.cpu.total_percent.
package telemetry
