package telemetry

import "github.com/prometheus/client_golang/prometheus"

// Gauge is one scrape-time reading.
type Gauge struct {
	Name   string // dotted
	Value  float64
	Labels map[string]string
}

// GaugeFunc is a collector whose readings come from a function called at
// every scrape: the server's pipeline counts, job summaries, client
// usage. Readings of one name must always carry the same label keys.
type GaugeFunc struct {
	m    *Metrics
	read func() []Gauge
}

// NewGaugeFunc returns a collector of read's gauges.
func (m *Metrics) NewGaugeFunc(read func() []Gauge) *GaugeFunc { return &GaugeFunc{m: m, read: read} }

// Describe sends nothing: the set of gauges varies (an unchecked
// collector), as jobs and nodes come and go.
func (g *GaugeFunc) Describe(chan<- *prometheus.Desc) {}

// Collect reads the gauges.
func (g *GaugeFunc) Collect(ch chan<- prometheus.Metric) {
	for _, r := range g.read() {
		keys := make([]string, 0, len(r.Labels))
		vals := make([]string, 0, len(r.Labels))
		for k, v := range r.Labels {
			keys = append(keys, k)
			vals = append(vals, v)
		}
		desc := prometheus.NewDesc(g.m.name(r.Name), r.Name, keys, nil)
		if m, err := prometheus.NewConstMetric(desc, prometheus.GaugeValue, r.Value, vals...); err == nil {
			ch <- m
		}
	}
}
