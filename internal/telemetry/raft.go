package telemetry

import (
	"sync"

	gometrics "github.com/armon/go-metrics"
	gmprom "github.com/armon/go-metrics/prometheus"
	"github.com/prometheus/client_golang/prometheus"
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
		_, _ = gometrics.NewGlobal(conf, sink)
	})
	return raftReg
}

// InstallRaftSink makes raft's metrics flow from now on; servers call it
// at start so samples taken before the first scrape are kept.
func InstallRaftSink() { raftRegistry() }
