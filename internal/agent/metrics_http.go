package agent

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"
)

func (h *HTTPServer) metricsRoutes() {
	h.handle("GET /v1/metrics", h.metrics)
}

// metrics answers GET /v1/metrics with the pipeline's gauges, in Nomad's
// JSON summary form or, with format=prometheus, in Prometheus text form.
func (h *HTTPServer) metrics(w http.ResponseWriter, r *http.Request) (any, error) {
	gauges := h.pipelineGauges()
	if r.URL.Query().Get("format") == "prometheus" {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprint(w, prometheusText(gauges))
		return nil, nil
	}
	return &api.MetricsSummary{
		Timestamp: h.srv.Config().Clock.Now().UTC().Format("2006-01-02 15:04:05 -0700 MST"),
		Gauges:    gauges, Counters: []api.SampledValue{}, Samples: []api.SampledValue{},
	}, nil
}

func (h *HTTPServer) pipelineGauges() []api.GaugeValue {
	st := h.srv.Stats()
	g := []api.GaugeValue{
		gauge("nomad.nomad.broker.total_ready", st.Broker.TotalReady, nil),
		gauge("nomad.nomad.broker.total_unacked", st.Broker.TotalUnacked, nil),
		gauge("nomad.nomad.broker.total_waiting", st.Broker.TotalWaiting, nil),
		gauge("nomad.nomad.broker.total_pending", st.Broker.TotalPending, nil),
		gauge("nomad.nomad.broker.total_cancelable", st.Broker.TotalCancelable, nil),
		gauge("nomad.nomad.blocked_evals.total_blocked", st.Blocked.TotalBlocked, nil),
		gauge("nomad.nomad.blocked_evals.total_escaped", st.Blocked.TotalEscaped, nil),
		gauge("nomad.nomad.plan.queue_depth", st.PlanQueue, nil),
		gauge("nomad.nomad.worker.total", st.Workers, nil),
		gauge("nomad.nomad.worker.paused", st.Paused, nil),
	}
	types := make([]string, 0, len(st.Broker.ByScheduler))
	for t := range st.Broker.ByScheduler {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		s := st.Broker.ByScheduler[t]
		labels := map[string]string{"scheduler": t}
		g = append(g,
			gauge("nomad.nomad.broker.ready", s.Ready, labels),
			gauge("nomad.nomad.broker.unacked", s.Unacked, labels),
			gauge("nomad.nomad.broker.delayed", s.Delayed, labels),
			gauge("nomad.nomad.broker.pending", s.Pending, labels))
	}
	return g
}

func gauge(name string, v int, labels map[string]string) api.GaugeValue {
	if labels == nil {
		labels = map[string]string{}
	}
	return api.GaugeValue{Name: name, Value: float32(v), DisplayLabels: labels}
}

// prometheusText renders gauges in the Prometheus exposition format.
func prometheusText(gauges []api.GaugeValue) string {
	var b strings.Builder
	for _, g := range gauges {
		name := strings.ReplaceAll(g.Name, ".", "_")
		var labels []string
		for k, v := range g.DisplayLabels {
			labels = append(labels, fmt.Sprintf("%s=%q", k, v))
		}
		sort.Strings(labels)
		if len(labels) > 0 {
			fmt.Fprintf(&b, "%s{%s} %g\n", name, strings.Join(labels, ","), g.Value)
		} else {
			fmt.Fprintf(&b, "%s %g\n", name, g.Value)
		}
	}
	return b.String()
}
