package telemetry

import (
	"bufio"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// udpLines listens on a free UDP port and collects the lines every
// packet carries.
type udpLines struct {
	conn  *net.UDPConn
	mu    sync.Mutex
	lines []string
}

func listenUDP(t *testing.T) *udpLines {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	u := &udpLines{conn: conn}
	t.Cleanup(func() { conn.Close() })
	go func() {
		buf := make([]byte, 65536)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			u.mu.Lock()
			u.lines = append(u.lines, strings.Split(strings.TrimSpace(string(buf[:n])), "\n")...)
			u.mu.Unlock()
		}
	}()
	return u
}

func (u *udpLines) addr() string { return u.conn.LocalAddr().String() }

// waitFor polls the received lines until every want is a prefix of one
// (or the deadline passes) and returns them.
func waitForLines(t *testing.T, what string, got func() []string, want ...string) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines := got()
		missing := ""
		for _, w := range want {
			found := false
			for _, l := range lines {
				if strings.HasPrefix(l, w) {
					found = true
					break
				}
			}
			if !found {
				missing = w
				break
			}
		}
		if missing == "" {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no line starting %q in %q", what, missing, lines)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not synchronisation
	}
}

func (u *udpLines) get() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.lines...)
}

func gaugeSet(m *Metrics) {
	m.Register(m.NewGaugeFunc(func() []Gauge {
		return []Gauge{
			{Name: "nomad.nomad.broker.ready", Value: 7, Labels: map[string]string{"scheduler": "service"}},
			{Name: "nomad.runtime.num_goroutines", Value: 42},
		}
	}))
}

// TestTelemetry_StatsdSinkSendsMetricLines: a statsd sink receives real
// statsd lines: gauges (hostname after the first part, as Nomad's
// disable_hostname = false), timings as they are observed, and counters'
// increases.
func TestTelemetry_StatsdSinkSendsMetricLines(t *testing.T) {
	u := listenUDP(t)
	m := New()
	gaugeSet(m)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := m.StartSinks(ctx, SinkConfig{StatsdAddr: u.addr(), CollectionInterval: 20 * time.Millisecond, Hostname: "host1", FilterDefault: true}); err != nil {
		t.Fatal(err)
	}
	m.PlanSubmit.Observe(12.5)
	m.Count("nomad.rpc.request", 3, "method", "Job.Register")
	waitForLines(t, "statsd", u.get,
		"nomad.host1.nomad.broker.ready.service:7.000000|g",
		"nomad.host1.runtime.num_goroutines:42.000000|g",
		"nomad.nomad.plan.submit:12.500000|ms",
		"nomad.rpc.request.Job.Register:3.000000|c")
	// Without a hostname the names are Nomad's own.
	u2 := listenUDP(t)
	m2 := New()
	gaugeSet(m2)
	if err := m2.StartSinks(ctx, SinkConfig{StatsdAddr: u2.addr(), CollectionInterval: 20 * time.Millisecond, FilterDefault: true}); err != nil {
		t.Fatal(err)
	}
	waitForLines(t, "statsd without hostname", u2.get, "nomad.runtime.num_goroutines:42.000000|g")
}

// TestTelemetry_DogStatsdSinkSendsTags: labels and dogstatsd_tags become
// DataDog tags.
func TestTelemetry_DogStatsdSinkSendsTags(t *testing.T) {
	u := listenUDP(t)
	m := New()
	gaugeSet(m)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := m.StartSinks(ctx, SinkConfig{DogStatsdAddr: u.addr(), DogStatsdTags: []string{"env:prod"}, CollectionInterval: 20 * time.Millisecond, FilterDefault: true}); err != nil {
		t.Fatal(err)
	}
	m.HTTPRequest.WithLabelValues("GET", "/v1/jobs").Observe(4)
	waitForLines(t, "dogstatsd", u.get,
		"nomad.nomad.broker.ready:7|g|#env:prod,scheduler:service",
		"nomad.http.request:4|ms|#env:prod,method:GET,route:/v1/jobs")
}

// TestTelemetry_HostnamePrefix: enable_hostname_label puts the host in a
// label instead of the name; use_node_name takes the node's name.
func TestTelemetry_HostnamePrefix(t *testing.T) {
	if NodeHostname("node-7", true) != "node-7" || NodeHostname("node-7", false) == "node-7" && NodeHostname("", false) == "" {
		t.Fatalf("NodeHostname: %q %q", NodeHostname("node-7", true), NodeHostname("node-7", false))
	}
	u := listenUDP(t)
	m := New()
	gaugeSet(m)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := m.StartSinks(ctx, SinkConfig{DogStatsdAddr: u.addr(), Hostname: NodeHostname("node-7", true), HostnameLabel: true,
		CollectionInterval: 20 * time.Millisecond, FilterDefault: true}); err != nil {
		t.Fatal(err)
	}
	waitForLines(t, "host label", u.get, "nomad.runtime.num_goroutines:42|g|#host:node-7")
}

// TestTelemetry_StatsiteSinkSendsMetricLines: statsite gets the same
// lines over TCP.
func TestTelemetry_StatsiteSinkSendsMetricLines(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var lines []string
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		sc := bufio.NewScanner(conn)
		for sc.Scan() {
			mu.Lock()
			lines = append(lines, sc.Text())
			mu.Unlock()
		}
	}()
	m := New()
	gaugeSet(m)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := m.StartSinks(ctx, SinkConfig{StatsiteAddr: ln.Addr().String(), CollectionInterval: 20 * time.Millisecond, FilterDefault: true}); err != nil {
		t.Fatal(err)
	}
	waitForLines(t, "statsite", func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), lines...) },
		"nomad.runtime.num_goroutines:42.000000|g")
}

// TestTelemetry_PrefixFilter: prefix_filter's rules and filter_default
// decide what reaches the sinks.
func TestTelemetry_PrefixFilter(t *testing.T) {
	u := listenUDP(t)
	m := New()
	gaugeSet(m)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := m.StartSinks(ctx, SinkConfig{StatsdAddr: u.addr(), CollectionInterval: 20 * time.Millisecond,
		FilterDefault: false, AllowedPrefixes: []string{"nomad.nomad.broker", "nomad.rpc"}, BlockedPrefixes: []string{"nomad.rpc.request_error"}}); err != nil {
		t.Fatal(err)
	}
	m.Count("nomad.rpc.request_error", 1)
	m.Count("nomad.rpc.request", 1)
	m.PlanSubmit.Observe(1) // not allowed
	lines := waitForLines(t, "filtered", u.get, "nomad.nomad.broker.ready.service:7", "nomad.rpc.request:1")
	// Two more exports pass, so anything filtered wrongly would be there.
	waitForLines(t, "later exports", func() []string {
		n := 0
		for _, l := range u.get() {
			if strings.HasPrefix(l, "nomad.nomad.broker.ready") {
				n++
			}
		}
		if n >= 3 {
			return []string{"three"}
		}
		return nil
	}, "three")
	for _, l := range u.get() {
		if strings.HasPrefix(l, "nomad.runtime") || strings.HasPrefix(l, "nomad.rpc.request_error") || strings.HasPrefix(l, "nomad.nomad.plan") {
			t.Errorf("filtered metric sent: %q (all: %q)", l, lines)
		}
	}
}

// TestTelemetry_IntervalWindowSummaries: the JSON form's samples carry
// count, sum, min, max, mean and standard deviation over the window.
func TestTelemetry_IntervalWindowSummaries(t *testing.T) {
	m := New()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := m.StartSinks(ctx, SinkConfig{InmemInterval: time.Hour, InmemRetain: 2 * time.Hour, CollectionInterval: time.Hour, FilterDefault: true}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{1, 2, 3} {
		m.PlanSubmit.Observe(v)
	}
	_, samples := m.Window()
	var got *WindowValue
	for i := range samples {
		if samples[i].Name == "nomad.nomad.plan.submit" {
			got = &samples[i]
		}
	}
	if got == nil || got.Count != 3 || got.Sum != 6 || got.Min != 1 || got.Max != 3 || got.Mean != 2 || got.Stddev != 1 {
		t.Fatalf("window sample = %+v (all %+v)", got, samples)
	}
}
