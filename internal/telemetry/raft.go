package telemetry

import (
	"math"
	"sync"
	"time"

	gometrics "github.com/armon/go-metrics"
	gmprom "github.com/armon/go-metrics/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

var (
	raftOnce sync.Once
	raftReg  *prometheus.Registry
)

// raftRegistry installs, once per process, the go-metrics sink that
// hashicorp/raft reports to (nomad.raft.apply, nomad.raft.commitTime,
// nomad.raft.leader.lastContact, nomad.raft.fsm.apply, ...) and returns
// the registry it feeds. go-metrics is process-global, so every server in
// a process (tests run several) shares it.
func raftRegistry() *prometheus.Registry {
	raftOnce.Do(func() {
		raftReg = prometheus.NewRegistry()
		sink, err := gmprom.NewPrometheusSinkFrom(gmprom.PrometheusOpts{Registerer: raftReg})
		if err != nil {
			return
		}
		conf := gometrics.DefaultConfig("nomad")
		conf.EnableHostname = false
		conf.EnableRuntimeMetrics = false // the runtime collector reads them at scrape time
		conf.EnableServiceLabel = false
		_, _ = gometrics.NewGlobal(conf, gometrics.FanoutSink{sink, raftFanout})
	})
	return raftReg
}

// InstallRaftSink makes raft's metrics flow from now on; servers call it
// at start so samples taken before the first scrape are kept.
func InstallRaftSink() { raftRegistry() }

// RaftSummary is one of raft's timing summaries in this process (every
// server in it together): how many samples, their mean and quantiles.
type RaftSummary struct {
	Name  string
	Count uint64
	Mean  time.Duration
	// P50, P90 and P99 are over the sink's sliding window (go-metrics'
	// Prometheus summaries keep the last 10 s): zero when the window held
	// no samples, although Count, over the whole run, is not.
	P50, P90, P99 time.Duration
}

// msDuration converts milliseconds; NaN, what a summary reports for a
// quantile of an empty window, is no duration (zero), not the minimum
// int64 a float conversion gives.
func msDuration(v float64) time.Duration {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return time.Duration(v * float64(time.Millisecond))
}

// RaftSummaries returns raft's timing summaries with the given names
// (Prometheus names, e.g. nomad_raft_commitTime), in that order; a name
// with no samples yet is left out, and one sampled under several label
// sets is each of them.
func RaftSummaries(names ...string) []RaftSummary {
	mfs, err := raftRegistry().Gather()
	if err != nil {
		return nil
	}
	byName := make(map[string]*dto.MetricFamily, len(mfs))
	for _, mf := range mfs {
		byName[mf.GetName()] = mf
	}
	var out []RaftSummary
	for _, name := range names {
		mf := byName[name]
		if mf == nil {
			continue
		}
		for _, m := range mf.GetMetric() {
			s := m.GetSummary()
			if s == nil || s.GetSampleCount() == 0 {
				continue
			}
			r := RaftSummary{Name: name, Count: s.GetSampleCount(), Mean: msDuration(s.GetSampleSum() / float64(s.GetSampleCount()))}
			for _, q := range s.GetQuantile() {
				switch q.GetQuantile() {
				case 0.5:
					r.P50 = msDuration(q.GetValue())
				case 0.9:
					r.P90 = msDuration(q.GetValue())
				case 0.99:
					r.P99 = msDuration(q.GetValue())
				}
			}
			out = append(out, r)
		}
	}
	return out
}
