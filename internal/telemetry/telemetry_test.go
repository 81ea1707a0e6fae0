package telemetry

import (
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestNames_DottedAndPrometheusForms(t *testing.T) {
	m := New()
	cases := []struct{ prom, dotted string }{
		{"nomad_nomad_plan_apply", "nomad.nomad.plan.apply"},
		{"nomad_nomad_worker_invoke_scheduler__core", "nomad.nomad.worker.invoke_scheduler._core"},
		{"drover_eval_status_seconds", "drover.eval.status_seconds"},
		// Names nobody registered (raft's, from go-metrics) fall back to dots.
		{"nomad_raft_commitTime", "nomad.raft.commitTime"},
	}
	for _, c := range cases {
		if got := m.DottedName(c.prom); got != c.dotted {
			t.Errorf("DottedName(%s) = %s, want %s", c.prom, got, c.dotted)
		}
	}
	if PromName("nomad.runtime.num_goroutines") != "nomad_runtime_num_goroutines" {
		t.Error("PromName")
	}
}

func TestGaugeFunc_ReadsAtScrapeTime(t *testing.T) {
	m := New()
	v := 1.0
	m.Register(m.NewGaugeFunc(func() []Gauge {
		return []Gauge{{Name: "nomad.nomad.broker.ready", Value: v, Labels: map[string]string{"scheduler": "service"}}}
	}))
	m.Register(m.NewRuntimeCollector())
	v = 7
	fams, err := m.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]float64{}
	for _, f := range fams {
		for _, x := range f.GetMetric() {
			if x.GetGauge() != nil {
				found[f.GetName()] = x.GetGauge().GetValue()
			}
		}
	}
	if found["nomad_nomad_broker_ready"] != 7 {
		t.Errorf("gauge read %v, want the value at scrape time 7", found["nomad_nomad_broker_ready"])
	}
	if found["nomad_runtime_num_goroutines"] < 1 {
		t.Error("runtime collector reported no goroutines")
	}
	m.EvalsCreated.WithLabelValues("job-register").Inc()
	if got := testutil.ToFloat64(m.EvalsCreated.CounterVec.WithLabelValues("job-register")); got != 1 {
		t.Errorf("evals created %v", got)
	}
	if _, ok := m.InvokeScheduler("unknown").(discard); !ok {
		t.Error("an unknown scheduler type should not be timed")
	}
}

// TestMsDuration_EmptyWindowIsZero: a summary quantile over an empty
// window is NaN; converted naively it printed -2562047h47m16.854775808s
// in `drover bench -raft-timings`.
func TestMsDuration_EmptyWindowIsZero(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want time.Duration
	}{{math.NaN(), 0}, {math.Inf(1), 0}, {1.5, 1500 * time.Microsecond}, {0, 0}} {
		if got := msDuration(tc.in); got != tc.want {
			t.Errorf("msDuration(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
