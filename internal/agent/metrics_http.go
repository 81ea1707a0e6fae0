package agent

import (
	"net/http"
	"sort"

	"github.com/hashicorp/nomad/api"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/telemetry"
)

func (h *HTTPServer) metricsRoutes() {
	h.handle("GET /v1/metrics", h.metricsSummary)
}

// setupMetrics picks the agent's metric set (its server's, or a set of
// its own on a client-only agent) and adds the client's gauges.
func (h *HTTPServer) setupMetrics() {
	if h.srv != nil {
		h.metrics = h.srv.Metrics()
		h.metrics.Register(h.metrics.NewGaugeFunc(h.replyCacheGauges))
	} else {
		h.metrics = telemetry.New()
		h.metrics.Register(h.metrics.NewRuntimeCollector())
	}
	h.metrics.Register(h.metrics.NewGaugeFunc(h.clientGauges))
}

// metricsSummary answers GET /v1/metrics: Nomad's JSON summary (gauges,
// counters, and histograms as samples), or with format=prometheus the
// Prometheus text exposition.
func (h *HTTPServer) metricsSummary(w http.ResponseWriter, r *http.Request) (any, error) {
	switch f := r.URL.Query().Get("format"); f {
	case "prometheus":
		if h.metricsOff.prometheus {
			return nil, server.BadRequest("format: prometheus metrics are off on this agent (telemetry.prometheus_metrics = false)")
		}
		promhttp.HandlerFor(h.metrics.Gatherer(), promhttp.HandlerOpts{}).ServeHTTP(w, r)
		return nil, nil
	case "", "json":
	default:
		return nil, server.BadRequest("format: %q is not a metrics format (want prometheus, or none for JSON)", f)
	}
	families, err := h.metrics.Gatherer().Gather()
	if err != nil && len(families) == 0 {
		return nil, err
	}
	out := &api.MetricsSummary{
		Timestamp: h.now().UTC().Format("2006-01-02 15:04:05 -0700 MST"),
		Gauges:    []api.GaugeValue{}, Points: []api.PointValue{}, Counters: []api.SampledValue{}, Samples: []api.SampledValue{},
	}
	for _, fam := range families {
		if fam.GetType() == dto.MetricType_GAUGE {
			h.addFamily(out, fam)
		}
	}
	sort.SliceStable(out.Gauges, func(i, j int) bool { return out.Gauges[i].Name < out.Gauges[j].Name })
	counters, samples := h.metrics.Window()
	for _, c := range counters {
		out.Counters = append(out.Counters, windowValue(c))
	}
	for _, s := range samples {
		out.Samples = append(out.Samples, windowValue(s))
	}
	return out, nil
}

// windowValue is one series of the in-memory window in Nomad's JSON:
// counters and samples as aggregates over the last 10 s interval.
// Gauges differ from Nomad on purpose: they are read when the request
// comes (as Prometheus scrapes them), not the interval's last value.
func windowValue(w telemetry.WindowValue) api.SampledValue {
	return api.SampledValue{Name: w.Name, DisplayLabels: w.Labels, Mean: w.Mean, Stddev: w.Stddev,
		AggregateSample: &api.AggregateSample{Count: w.Count, Sum: w.Sum, Min: w.Min, Max: w.Max}}
}

// addFamily converts one Prometheus family into the summary's lists.
func (h *HTTPServer) addFamily(out *api.MetricsSummary, fam *dto.MetricFamily) {
	name := h.metrics.DottedName(fam.GetName())
	for _, m := range fam.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		switch fam.GetType() {
		case dto.MetricType_GAUGE:
			out.Gauges = append(out.Gauges, api.GaugeValue{Name: name, Value: float32(m.GetGauge().GetValue()), DisplayLabels: labels})
		case dto.MetricType_COUNTER:
			v := m.GetCounter().GetValue()
			out.Counters = append(out.Counters, sampled(name, labels, uint64(v), v))
		case dto.MetricType_HISTOGRAM:
			hist := m.GetHistogram()
			out.Samples = append(out.Samples, sampled(name, labels, hist.GetSampleCount(), hist.GetSampleSum()))
		case dto.MetricType_SUMMARY:
			s := m.GetSummary()
			out.Samples = append(out.Samples, sampled(name, labels, s.GetSampleCount(), s.GetSampleSum()))
		}
	}
}

func sampled(name string, labels map[string]string, count uint64, sum float64) api.SampledValue {
	agg := &api.AggregateSample{Count: int(count), Sum: sum}
	v := api.SampledValue{Name: name, AggregateSample: agg, DisplayLabels: labels}
	if count > 0 {
		v.Mean = sum / float64(count)
	}
	return v
}
