package server

import (
	"sort"
	"time"

	"github.com/drover-project/drover/internal/server/blockedevals"
	"github.com/drover-project/drover/internal/server/broker"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/telemetry"
)

// Metrics returns the server's metric set (/v1/metrics gathers it).
func (s *Server) Metrics() *telemetry.Metrics { return s.config.Metrics }

// registerMetrics adds the scrape-time collectors: nothing is counted in
// the pipeline's hot paths for them, they read its state when scraped.
func (s *Server) registerMetrics() {
	m := s.config.Metrics
	telemetry.InstallRaftSink()
	m.Register(m.NewRuntimeCollector())
	m.Register(m.NewGaugeFunc(s.pipelineGauges))
	m.Register(m.NewGaugeFunc(func() []telemetry.Gauge {
		return jobGauges(s.State(), s.config.DisableDispatchedJobSummaryMetrics)
	}))
	m.Register(m.NewGaugeFunc(func() []telemetry.Gauge { return autopilotGauges(s) }))
}

// autopilotGauges are raft-autopilot's health gauges under Nomad's names
// (nomad.autopilot.healthy: 1 or 0, nomad.autopilot.failure_tolerance),
// reported by the leader only, as Nomad does.
func autopilotGauges(s *Server) []telemetry.Gauge {
	if s.cluster == nil || !s.cluster.HasAutopilot() || !s.IsLeader() {
		return nil
	}
	st := s.cluster.AutopilotState()
	if st == nil {
		return nil
	}
	healthy := 0
	if st.Healthy {
		healthy = 1
	}
	return []telemetry.Gauge{gauge("nomad.autopilot.healthy", healthy), gauge("nomad.autopilot.failure_tolerance", st.FailureTolerance)}
}

// blockedResources is the CPU (MHz) and memory (MB) the blocked evals
// wait for: for each group an eval could not place, its queued count
// (at least one) times the group's tasks' asks. Nomad labels these by
// datacenter and node class; Drover reports the cluster's totals.
func blockedResources(st *state.StateStore) (cpu, mem int) {
	evals, err := st.EvalsByStatus(nil, structs.EvalStatusBlocked)
	if err != nil {
		return 0, 0
	}
	for _, e := range evals {
		job, err := st.JobByID(nil, e.Namespace, e.JobID)
		if err != nil || job == nil {
			continue
		}
		for _, tg := range job.TaskGroups {
			if _, failed := e.FailedTGAllocs[tg.Name]; !failed {
				continue
			}
			n := max(1, e.QueuedAllocations[tg.Name])
			for _, t := range tg.Tasks {
				if t.Resources != nil {
					cpu += n * t.Resources.CPU
					mem += n * t.Resources.MemoryMB
				}
			}
		}
	}
	return cpu, mem
}

// eventTap counts created evals by trigger on their way to the event
// stream: an eval is created by the entry whose index is its CreateIndex.
type eventTap struct{ s *Server }

func (t eventTap) Publish(batch *structs.Events) {
	for i := range batch.Events {
		e := &batch.Events[i]
		if e.Topic != structs.TopicEvaluation || e.Type == structs.TypeEvalDeleted {
			continue
		}
		if p, ok := e.Payload.(*structs.EvaluationEvent); ok && p.Evaluation.CreateIndex == batch.Index {
			t.s.config.Metrics.EvalsCreated.WithLabelValues(p.Evaluation.TriggeredBy).Inc()
		}
	}
	t.s.events.Publish(batch)
}

// observeEvalStep times the step an eval just left and publishes the new
// one if it is a quasi-status.
func (s *Server) observeEvalStep(evalID string, step, ended *structs.EvalTimelineEntry) {
	if ended != nil {
		took := time.Duration(step.Time - ended.Time)
		s.config.Metrics.EvalStatus.WithLabelValues(ended.Status).Observe(took.Seconds())
		if ended.Status == structs.EvalStatusPending && step.Status == structs.EvalQuasiStatusScheduling {
			s.config.Metrics.BrokerWait.Observe(telemetry.Ms(took))
			if e, err := s.State().EvalByID(nil, evalID); err == nil && e != nil {
				s.config.Metrics.BrokerWaitFor(e.Type).Observe(telemetry.Ms(took))
			}
		}
	}
	s.publishEvalStep(evalID, step)
}

func gauge(name string, v int, labels ...string) telemetry.Gauge {
	g := telemetry.Gauge{Name: name, Value: float64(v)}
	if len(labels) > 0 {
		g.Labels = map[string]string{}
		for i := 0; i+1 < len(labels); i += 2 {
			g.Labels[labels[i]] = labels[i+1]
		}
	}
	return g
}

// pipelineGauges are the broker, blocked evals, plan queue, workers and
// heartbeat counts, under Nomad's names.
func (s *Server) pipelineGauges() []telemetry.Gauge {
	st := s.Stats()
	g := []telemetry.Gauge{
		gauge("nomad.nomad.broker.total_ready", st.Broker.TotalReady),
		gauge("nomad.nomad.broker.total_unacked", st.Broker.TotalUnacked),
		gauge("nomad.nomad.broker.total_waiting", st.Broker.TotalWaiting),
		gauge("nomad.nomad.broker.total_pending", st.Broker.TotalPending),
		gauge("nomad.nomad.broker.total_cancelable", st.Broker.TotalCancelable),
		gauge("nomad.nomad.blocked_evals.total_blocked", st.Blocked.TotalBlocked),
		gauge("nomad.nomad.blocked_evals.total_escaped", st.Blocked.TotalEscaped),
		gauge("nomad.nomad.plan.queue_depth", st.PlanQueue),
		gauge("nomad.nomad.worker.total", st.Workers),
		gauge("nomad.nomad.worker.paused", st.Paused),
		gauge("nomad.nomad.heartbeat.active", s.leader.Heartbeats().Active()),
	}
	cpu, mem := blockedResources(s.State())
	g = append(g, gauge("nomad.nomad.blocked_evals.cpu", cpu), gauge("nomad.nomad.blocked_evals.memory", mem))
	blocked := blockedByScheduler(s.State())
	// The job schedulers always have a series, so a dashboard sees zeros
	// rather than gaps; others (_core, the failed queue) when present.
	seen := map[string]bool{structs.JobTypeService: true, structs.JobTypeBatch: true,
		structs.JobTypeSystem: true, structs.JobTypeSysBatch: true}
	for t := range st.Broker.ByScheduler {
		seen[t] = true
	}
	for t := range blocked {
		seen[t] = true
	}
	types := make([]string, 0, len(seen))
	for t := range seen {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		var b struct{ Ready, Unacked, Delayed, Pending int }
		if bs := st.Broker.ByScheduler[t]; bs != nil {
			b.Ready, b.Unacked, b.Delayed, b.Pending = bs.Ready, bs.Unacked, bs.Delayed, bs.Pending
		}
		g = append(g,
			gauge("nomad.nomad.broker.ready", b.Ready, "scheduler", t),
			gauge("nomad.nomad.broker.unacked", b.Unacked, "scheduler", t),
			gauge("nomad.nomad.broker.delayed", b.Delayed, "scheduler", t),
			gauge("nomad.nomad.broker.pending", b.Pending, "scheduler", t),
			gauge("nomad.nomad.broker.blocked", blocked[t], "scheduler", t),
			// Nomad's own names of the same, beside Drover's labelled form.
			gauge("nomad.nomad.broker."+t+"_ready", b.Ready),
			gauge("nomad.nomad.broker."+t+"_unacked", b.Unacked))
	}
	return g
}

// blockedByScheduler counts stored blocked evals by type.
func blockedByScheduler(st *state.StateStore) map[string]int {
	out := map[string]int{}
	evals, err := st.EvalsByStatus(nil, structs.EvalStatusBlocked)
	if err != nil {
		return out
	}
	for _, e := range evals {
		out[e.Type]++
	}
	return out
}

// jobGauges are Nomad's per-group job summaries and job status counts.
// skipDispatched leaves dispatched jobs' summaries out.
func jobGauges(st *state.StateStore, skipDispatched bool) []telemetry.Gauge {
	jobs, err := st.Jobs(nil, "*")
	if err != nil {
		return nil
	}
	var g []telemetry.Gauge
	status := map[string]map[string]int{} // namespace -> status -> count
	for _, j := range jobs {
		if status[j.Namespace] == nil {
			status[j.Namespace] = map[string]int{}
		}
		status[j.Namespace][j.Status]++
		if skipDispatched && j.Dispatched {
			continue
		}
		sum, err := SummarizeJob(nil, st, j)
		if err != nil {
			continue
		}
		for tg, c := range sum.Summary {
			l := []string{"job", j.ID, "task_group", tg, "namespace", j.Namespace}
			g = append(g,
				gauge("nomad.nomad.job_summary.queued", c.Queued, l...),
				gauge("nomad.nomad.job_summary.complete", c.Complete, l...),
				gauge("nomad.nomad.job_summary.failed", c.Failed, l...),
				gauge("nomad.nomad.job_summary.running", c.Running, l...),
				gauge("nomad.nomad.job_summary.starting", c.Starting, l...),
				gauge("nomad.nomad.job_summary.lost", c.Lost, l...),
				gauge("nomad.nomad.job_summary.unknown", c.Unknown, l...))
		}
	}
	for ns, counts := range status {
		for _, st := range []string{structs.JobStatusPending, structs.JobStatusRunning, structs.JobStatusDead} {
			g = append(g, gauge("nomad.nomad.job_status."+st, counts[st], "namespace", ns))
		}
	}
	return g
}

// PipelineStats is a point-in-time view of the evaluation pipeline.
type PipelineStats struct {
	Broker     broker.Stats
	Blocked    blockedevals.Stats
	PlanQueue  int
	Workers    int
	Paused     int
	IsLeader   bool
	AppliedIdx uint64
}

// Stats returns the pipeline's counters (used by /v1/metrics and tests).
func (s *Server) Stats() PipelineStats {
	paused := 0
	for _, w := range s.workers {
		if w.isPaused() {
			paused++
		}
	}
	return PipelineStats{
		Broker: s.broker.Stats(), Blocked: s.blocked.Stats(), PlanQueue: s.planQueue.Stats(),
		Workers: len(s.workers), Paused: paused, IsLeader: s.IsLeader(), AppliedIdx: s.State().LatestIndex(),
	}
}
