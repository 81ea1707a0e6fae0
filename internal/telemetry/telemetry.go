package telemetry

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gometrics "github.com/armon/go-metrics"
	"github.com/prometheus/client_golang/prometheus"
)

// Scheduler types that get their own invoke_scheduler timing, as Nomad
// names them (nomad.nomad.worker.invoke_scheduler.<type>).
var schedulerTypes = []string{"service", "batch", "system", "sysbatch", "_core"}

// msBuckets are histogram buckets in milliseconds (Nomad reports timings
// in ms), from 0.1 ms to a minute.
var msBuckets = []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000}

// secondBuckets cover an eval's time in one status: milliseconds to hours.
var secondBuckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600}

// Metrics is one server's (or agent's) metric set.
type Metrics struct {
	reg *prometheus.Registry

	mu       sync.Mutex
	dotted   map[string]string // Prometheus name -> Nomad's dotted name
	counters map[string]*prometheus.CounterVec
	// sinks are the go-metrics sinks (the in-memory window of the JSON
	// form, statsd, dogstatsd...) that observations and exports go to.
	sinks atomic.Pointer[sinkSet]

	PlanSubmit   prometheus.Observer // worker: submit to result, ms
	PlanEvaluate prometheus.Observer // applier: evaluate a plan, ms
	PlanApply    prometheus.Observer // applier: commit a plan through raft, ms
	// WorkerDequeue is the time a worker waited for an eval, ms.
	WorkerDequeue prometheus.Observer
	// BrokerWait is the time an eval sat ready in the broker, ms.
	BrokerWait prometheus.Observer
	brokerWait map[string]prometheus.Observer // by scheduler type
	invoke     map[string]prometheus.Observer
	// EvalStatus observes the seconds an eval spent in a status or
	// quasi-status once it leaves it (label status).
	EvalStatus *HistogramVec
	// EvalsCreated counts evals written, by trigger.
	EvalsCreated *CounterVec
	// HTTPRequest times API requests by method and route pattern, ms.
	HTTPRequest *HistogramVec
}

// HistogramVec is a labelled histogram whose observations also go to the
// metric set's sinks.
type HistogramVec struct {
	*prometheus.HistogramVec
	m      *Metrics
	dotted string
	labels []string
}

// WithLabelValues is the observer of one label set.
func (h *HistogramVec) WithLabelValues(vals ...string) prometheus.Observer {
	return tee{h.HistogramVec.WithLabelValues(vals...), h.m, h.dotted, pairs(h.labels, vals)}
}

// CounterVec is a labelled counter whose increments also go to the
// metric set's sinks.
type CounterVec struct {
	*prometheus.CounterVec
	m      *Metrics
	dotted string
	labels []string
}

// Counter is one label set of a CounterVec.
type Counter interface {
	Inc()
	Add(float64)
}

// WithLabelValues is the counter of one label set.
func (c *CounterVec) WithLabelValues(vals ...string) Counter {
	return teeCounter{c.CounterVec.WithLabelValues(vals...), c.m, c.dotted, pairs(c.labels, vals)}
}

func pairs(names, vals []string) []gometrics.Label {
	ls := make([]gometrics.Label, 0, len(vals))
	for i, v := range vals {
		if i < len(names) {
			ls = append(ls, gometrics.Label{Name: names[i], Value: v})
		}
	}
	return ls
}

type teeCounter struct {
	c      prometheus.Counter
	m      *Metrics
	dotted string
	labels []gometrics.Label
}

func (t teeCounter) Inc() { t.Add(1) }

func (t teeCounter) Add(v float64) {
	t.c.Add(v)
	if s := t.m.sinks.Load(); s != nil {
		s.counter(strings.Split(t.dotted, "."), float32(v), t.labels)
	}
}

// tee observes into a Prometheus histogram and the sinks.
type tee struct {
	o      prometheus.Observer
	m      *Metrics
	dotted string
	labels []gometrics.Label
}

func (t tee) Observe(v float64) {
	t.o.Observe(v)
	t.m.sample(t.dotted, v, t.labels)
}

// New returns a metric set with its timings registered.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), dotted: map[string]string{}, invoke: map[string]prometheus.Observer{},
		brokerWait: map[string]prometheus.Observer{}, counters: map[string]*prometheus.CounterVec{}}
	if s, err := newSinkSet(SinkConfig{FilterDefault: true}); err == nil { // no network sinks: cannot fail
		m.sinks.Store(s)
	}
	m.PlanSubmit = m.histogram("nomad.nomad.plan.submit", "Time from a worker submitting a plan to its result (ms).")
	m.PlanEvaluate = m.histogram("nomad.nomad.plan.evaluate", "Time the plan applier spent evaluating a plan against the state (ms).")
	m.PlanApply = m.histogram("nomad.nomad.plan.apply", "Time the plan applier spent committing a plan through raft (ms).")
	m.WorkerDequeue = m.histogram("nomad.nomad.worker.dequeue_eval", "Time a worker waited to dequeue an evaluation (ms).")
	m.BrokerWait = m.histogram("nomad.nomad.broker.wait_time", "Time an evaluation waited ready in the broker before a worker took it (ms).")
	for _, t := range schedulerTypes {
		m.invoke[t] = m.histogram("nomad.nomad.worker.invoke_scheduler."+t, "Time the "+t+" scheduler took to process an evaluation (ms).")
		m.brokerWait[t] = m.histogram("nomad.nomad.broker."+t+".wait_time", "Time a "+t+" evaluation waited ready in the broker before a worker took it (ms).")
	}
	m.EvalStatus = &HistogramVec{HistogramVec: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: m.name("drover.eval.status_seconds"), Buckets: secondBuckets,
		Help: "Seconds an evaluation spent in a status or quasi-status (pending, delayed, scheduling, applying, blocked) before leaving it.",
	}, []string{"status"}), m: m, dotted: "drover.eval.status_seconds", labels: []string{"status"}}
	m.EvalsCreated = &CounterVec{CounterVec: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: m.name("drover.evals.created_total"), Help: "Evaluations created, by trigger.",
	}, []string{"trigger"}), m: m, dotted: "drover.evals.created_total", labels: []string{"trigger"}}
	m.HTTPRequest = &HistogramVec{HistogramVec: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: m.name("nomad.http.request"), Buckets: msBuckets,
		Help: "Time to answer an HTTP API request by route pattern (ms; a stream counts until it ends).",
	}, []string{"method", "route"}), m: m, dotted: "nomad.http.request", labels: []string{"method", "route"}}
	m.reg.MustRegister(m.EvalStatus.HistogramVec, m.EvalsCreated.CounterVec, m.HTTPRequest.HistogramVec)
	return m
}

// InvokeScheduler is the timing of one scheduler type (nil for unknown
// types, which are not timed).
func (m *Metrics) InvokeScheduler(schedulerType string) prometheus.Observer {
	if o, ok := m.invoke[schedulerType]; ok {
		return o
	}
	return discard{}
}

// BrokerWaitFor is the broker wait timing of one scheduler type (discarded
// for unknown types).
func (m *Metrics) BrokerWaitFor(schedulerType string) prometheus.Observer {
	if o, ok := m.brokerWait[schedulerType]; ok {
		return o
	}
	return discard{}
}

type discard struct{}

func (discard) Observe(float64) {}

// Register adds a collector (scrape-time gauges) to the set.
func (m *Metrics) Register(c prometheus.Collector) { m.reg.MustRegister(c) }

// Gatherer gathers this set and the process-wide raft metrics.
func (m *Metrics) Gatherer() prometheus.Gatherer {
	return prometheus.Gatherers{m.reg, raftRegistry()}
}

// DottedName returns Nomad's dotted name of a Prometheus metric name.
func (m *Metrics) DottedName(promName string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d, ok := m.dotted[promName]; ok {
		return d
	}
	return strings.ReplaceAll(promName, "_", ".")
}

// name records a dotted name and returns its Prometheus form.
func (m *Metrics) name(dotted string) string {
	p := PromName(dotted)
	m.mu.Lock()
	m.dotted[p] = dotted
	m.mu.Unlock()
	return p
}

// PromName is the Prometheus form of a dotted name.
func PromName(dotted string) string { return strings.ReplaceAll(dotted, ".", "_") }

func (m *Metrics) histogram(dotted, help string) prometheus.Observer {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: m.name(dotted), Help: help, Buckets: msBuckets})
	m.reg.MustRegister(h)
	return tee{o: h, m: m, dotted: dotted}
}

// Ms converts a duration to the milliseconds Nomad's timings use.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
