package telemetry

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	gometrics "github.com/armon/go-metrics"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// SinkConfig is the agent's telemetry { } block as the metric set uses
// it: where metrics go besides the Prometheus registry, and which.
type SinkConfig struct {
	// CollectionInterval is how often gauges and counters are read and
	// sent to the sinks (Nomad's collection_interval, default 1 s).
	CollectionInterval time.Duration
	// Hostname, when set, goes into gauge names after their first part
	// (nomad.<host>.runtime.num_goroutines), as Nomad's disable_hostname
	// = false does; with HostnameLabel it becomes a host label on every
	// metric instead.
	Hostname      string
	HostnameLabel bool
	StatsdAddr    string
	StatsiteAddr  string
	DogStatsdAddr string
	DogStatsdTags []string
	// FilterDefault lets metrics no prefix rule matches through;
	// AllowedPrefixes and BlockedPrefixes are prefix_filter's + and -
	// rules (dotted names).
	FilterDefault   bool
	AllowedPrefixes []string
	BlockedPrefixes []string
	// InmemInterval and InmemRetain shape the window /v1/metrics' JSON
	// form reports counters and samples over (Nomad: 10 s kept 1 m).
	InmemInterval time.Duration
	InmemRetain   time.Duration
}

// DefaultInmemInterval and DefaultInmemRetain are Nomad's in-memory
// window: metrics aggregated over 10 s, kept a minute.
const (
	DefaultInmemInterval = 10 * time.Second
	DefaultInmemRetain   = time.Minute
)

// sinkSet is a metric set's go-metrics side: the filtering front, the
// in-memory sink the JSON form reads, and what to close.
type sinkSet struct {
	cfg   SinkConfig
	gm    *gometrics.Metrics
	inmem *gometrics.InmemSink
	close []func()
}

func newSinkSet(cfg SinkConfig) (*sinkSet, error) {
	if cfg.InmemInterval <= 0 {
		cfg.InmemInterval = DefaultInmemInterval
	}
	if cfg.InmemRetain < cfg.InmemInterval {
		cfg.InmemRetain = max(DefaultInmemRetain, cfg.InmemInterval)
	}
	s := &sinkSet{cfg: cfg, inmem: gometrics.NewInmemSink(cfg.InmemInterval, cfg.InmemRetain)}
	fan := gometrics.FanoutSink{s.inmem}
	if cfg.StatsdAddr != "" {
		sink, err := gometrics.NewStatsdSink(cfg.StatsdAddr)
		if err != nil {
			return nil, fmt.Errorf("telemetry.statsd_address: %w", err)
		}
		fan, s.close = append(fan, sink), append(s.close, sink.Shutdown)
	}
	if cfg.StatsiteAddr != "" {
		sink, err := gometrics.NewStatsiteSink(cfg.StatsiteAddr)
		if err != nil {
			s.shutdown()
			return nil, fmt.Errorf("telemetry.statsite_address: %w", err)
		}
		fan, s.close = append(fan, sink), append(s.close, sink.Shutdown)
	}
	if cfg.DogStatsdAddr != "" {
		sink, err := NewDogStatsdSink(cfg.DogStatsdAddr, cfg.DogStatsdTags)
		if err != nil {
			s.shutdown()
			return nil, fmt.Errorf("telemetry.dogstatsd_address: %w", err)
		}
		fan, s.close = append(fan, sink), append(s.close, sink.Shutdown)
	}
	conf := gometrics.DefaultConfig("")
	conf.EnableHostname, conf.EnableHostnameLabel, conf.HostName = false, false, ""
	conf.EnableRuntimeMetrics, conf.EnableServiceLabel = false, false
	conf.FilterDefault, conf.AllowedPrefixes, conf.BlockedPrefixes = cfg.FilterDefault, cfg.AllowedPrefixes, cfg.BlockedPrefixes
	gm, err := gometrics.New(conf, fan)
	if err != nil {
		s.shutdown()
		return nil, err
	}
	s.gm = gm
	return s, nil
}

func (s *sinkSet) shutdown() {
	for _, c := range s.close {
		c()
	}
}

// labels adds the host label when asked.
func (s *sinkSet) labels(ls []gometrics.Label) []gometrics.Label {
	if s.cfg.HostnameLabel && s.cfg.Hostname != "" {
		ls = append(ls, gometrics.Label{Name: "host", Value: s.cfg.Hostname})
	}
	return ls
}

func (s *sinkSet) gauge(key []string, v float32, ls []gometrics.Label) {
	if s.cfg.Hostname != "" && !s.cfg.HostnameLabel && len(key) > 1 {
		key = append([]string{key[0], s.cfg.Hostname}, key[1:]...)
	}
	s.gm.SetGaugeWithLabels(key, v, s.labels(ls))
}

func (s *sinkSet) counter(key []string, v float32, ls []gometrics.Label) {
	s.gm.IncrCounterWithLabels(key, v, s.labels(ls))
}

func (s *sinkSet) sample(key []string, v float32, ls []gometrics.Label) {
	s.gm.AddSampleWithLabels(key, v, s.labels(ls))
}

// sample sends one observation of a dotted name to the sinks.
func (m *Metrics) sample(dotted string, v float64, labels []gometrics.Label) {
	if s := m.sinks.Load(); s != nil {
		s.sample(strings.Split(dotted, "."), float32(v), labels)
	}
}

// Count adds n to a counter by its dotted name, with labels as name,
// value pairs: into the Prometheus registry (created on first use) and
// the sinks at once.
func (m *Metrics) Count(dotted string, n float64, labels ...string) {
	keys, vals := make([]string, 0, len(labels)/2), make([]string, 0, len(labels)/2)
	for i := 0; i+1 < len(labels); i += 2 {
		keys, vals = append(keys, labels[i]), append(vals, labels[i+1])
	}
	teeCounter{m.counterVec(dotted, keys).WithLabelValues(vals...), m, dotted, pairs(keys, vals)}.Add(n)
}

func (m *Metrics) counterVec(dotted string, keys []string) *prometheus.CounterVec {
	id := dotted + "|" + strings.Join(keys, ",")
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.counters[id]; ok {
		return c
	}
	p := PromName(dotted)
	m.dotted[p] = dotted
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: p, Help: dotted}, keys)
	if err := m.reg.Register(c); err != nil {
		if are, ok := err.(prometheus.AlreadyRegisteredError); ok {
			c = are.ExistingCollector.(*prometheus.CounterVec)
		}
	}
	m.counters[id] = c
	return c
}

// StartSinks sends the metric set to cfg's sinks from now until ctx ends:
// every observation and count as it happens, and raft's go-metrics; with
// a statsd, statsite or dogstatsd sink also the gauges, read every
// CollectionInterval (without one nothing reads them in between: the JSON
// form reads them when asked). It also sets the window the JSON form
// reports. Call it once.
func (m *Metrics) StartSinks(ctx context.Context, cfg SinkConfig) error {
	s, err := newSinkSet(cfg)
	if err != nil {
		return err
	}
	m.sinks.Store(s)
	raftFanout.add(s)
	interval := cfg.CollectionInterval
	if interval <= 0 {
		interval = time.Second
	}
	export := cfg.StatsdAddr != "" || cfg.StatsiteAddr != "" || cfg.DogStatsdAddr != ""
	go func() {
		defer func() { raftFanout.remove(s); s.shutdown() }()
		if !export {
			<-ctx.Done()
			return
		}
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			m.export(s)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return nil
}

// export sends the registry's gauges to the sinks. Histograms and
// counters went as they happened.
func (m *Metrics) export(s *sinkSet) {
	fams, err := m.reg.Gather()
	if err != nil && len(fams) == 0 {
		return
	}
	for _, f := range fams {
		key := strings.Split(m.DottedName(f.GetName()), ".")
		for _, mt := range f.GetMetric() {
			ls := make([]gometrics.Label, 0, len(mt.GetLabel()))
			for _, l := range mt.GetLabel() {
				ls = append(ls, gometrics.Label{Name: l.GetName(), Value: l.GetValue()})
			}
			if f.GetType() == dto.MetricType_GAUGE {
				s.gauge(key, float32(mt.GetGauge().GetValue()), ls)
			}
		}
	}
}

// Window is the JSON form's counters and samples: the last finished
// in-memory interval (the current one while it is the only one), as
// Nomad's /v1/metrics reports them, with count, sum, min, max, mean and
// standard deviation. Names are dotted; labels by name.
func (m *Metrics) Window() (counters, samples []WindowValue) {
	s := m.sinks.Load()
	if s == nil {
		return nil, nil
	}
	data := s.inmem.Data()
	iv := data[len(data)-1]
	if len(data) > 1 {
		iv = data[len(data)-2]
	}
	iv.RLock()
	defer iv.RUnlock()
	conv := func(in map[string]gometrics.SampledValue) []WindowValue {
		out := make([]WindowValue, 0, len(in))
		for _, v := range in {
			w := WindowValue{Name: v.Name, Labels: map[string]string{}}
			if a := v.AggregateSample; a != nil {
				w.Count, w.Sum, w.Min, w.Max, w.Mean, w.Stddev = a.Count, a.Sum, a.Min, a.Max, a.Mean(), a.Stddev()
				if math.IsNaN(w.Stddev) {
					w.Stddev = 0
				}
			}
			for _, l := range v.Labels {
				w.Labels[l.Name] = l.Value
			}
			out = append(out, w)
		}
		sort.Slice(out, func(i, j int) bool {
			return out[i].Name < out[j].Name || out[i].Name == out[j].Name && fmt.Sprint(out[i].Labels) < fmt.Sprint(out[j].Labels)
		})
		return out
	}
	return conv(iv.Counters), conv(iv.Samples)
}

// WindowValue is one aggregated series of the in-memory window.
type WindowValue struct {
	Name                        string
	Labels                      map[string]string
	Count                       int
	Sum, Min, Max, Mean, Stddev float64
}

// NodeHostname is the name telemetry uses for this host: the node name
// with use_node_name, else the OS hostname.
func NodeHostname(nodeName string, useNodeName bool) string {
	if useNodeName && nodeName != "" {
		return nodeName
	}
	h, _ := os.Hostname()
	return h
}

// raftFanout is the process-wide go-metrics sink's second half: raft's
// metrics go to the Prometheus registry and to every running set's
// sinks.
var raftFanout = &dynamicSink{}

type dynamicSink struct {
	mu   sync.RWMutex
	sets []*sinkSet
}

func (d *dynamicSink) add(s *sinkSet) { d.mu.Lock(); d.sets = append(d.sets, s); d.mu.Unlock() }

func (d *dynamicSink) remove(s *sinkSet) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, x := range d.sets {
		if x == s {
			d.sets = append(d.sets[:i], d.sets[i+1:]...)
			return
		}
	}
}

func (d *dynamicSink) each(f func(*sinkSet)) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	for _, s := range d.sets {
		f(s)
	}
}

func (d *dynamicSink) SetGauge(k []string, v float32) { d.SetGaugeWithLabels(k, v, nil) }
func (d *dynamicSink) SetGaugeWithLabels(k []string, v float32, ls []gometrics.Label) {
	d.each(func(s *sinkSet) { s.gauge(k, v, ls) })
}
func (d *dynamicSink) EmitKey([]string, float32)         {}
func (d *dynamicSink) IncrCounter(k []string, v float32) { d.IncrCounterWithLabels(k, v, nil) }
func (d *dynamicSink) IncrCounterWithLabels(k []string, v float32, ls []gometrics.Label) {
	d.each(func(s *sinkSet) { s.counter(k, v, ls) })
}
func (d *dynamicSink) AddSample(k []string, v float32) { d.AddSampleWithLabels(k, v, nil) }
func (d *dynamicSink) AddSampleWithLabels(k []string, v float32, ls []gometrics.Label) {
	d.each(func(s *sinkSet) { s.sample(k, v, ls) })
}

// DogStatsdSink sends metrics to a DogStatsD agent over UDP, one line per
// packet: name:value|type with the labels and the global tags as
// DataDog tags (|#tag:value,...).
type DogStatsdSink struct {
	conn net.Conn
	tags []string
}

// NewDogStatsdSink dials addr (host:port, UDP).
func NewDogStatsdSink(addr string, tags []string) (*DogStatsdSink, error) {
	conn, err := net.Dial("udp", addr)
	if err != nil {
		return nil, err
	}
	return &DogStatsdSink{conn: conn, tags: tags}, nil
}

// Shutdown closes the socket.
func (d *DogStatsdSink) Shutdown() { _ = d.conn.Close() }

func (d *DogStatsdSink) send(key []string, v float32, typ string, ls []gometrics.Label) {
	name := strings.NewReplacer(":", "_", "|", "_", " ", "_").Replace(strings.Join(key, "."))
	tags := append([]string(nil), d.tags...)
	for _, l := range ls {
		tags = append(tags, l.Name+":"+l.Value)
	}
	line := name + ":" + strconv.FormatFloat(float64(v), 'f', -1, 32) + "|" + typ
	if len(tags) > 0 {
		line += "|#" + strings.Join(tags, ",")
	}
	_, _ = d.conn.Write([]byte(line))
}

func (d *DogStatsdSink) SetGauge(k []string, v float32) { d.send(k, v, "g", nil) }
func (d *DogStatsdSink) SetGaugeWithLabels(k []string, v float32, ls []gometrics.Label) {
	d.send(k, v, "g", ls)
}
func (d *DogStatsdSink) EmitKey(k []string, v float32)     { d.send(k, v, "kv", nil) }
func (d *DogStatsdSink) IncrCounter(k []string, v float32) { d.send(k, v, "c", nil) }
func (d *DogStatsdSink) IncrCounterWithLabels(k []string, v float32, ls []gometrics.Label) {
	d.send(k, v, "c", ls)
}
func (d *DogStatsdSink) AddSample(k []string, v float32) { d.send(k, v, "ms", nil) }
func (d *DogStatsdSink) AddSampleWithLabels(k []string, v float32, ls []gometrics.Label) {
	d.send(k, v, "ms", ls)
}
