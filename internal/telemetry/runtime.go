package telemetry

import (
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
)

// runtimeCollector reads Go runtime figures when scraped, under Nomad's
// names (nomad.runtime.*), so no goroutine polls them in between.
type runtimeCollector struct {
	goroutines, alloc, sys, mallocs, frees, heapObjects, pauseTotal, gcRuns, lastPause *prometheus.Desc
}

// NewRuntimeCollector returns the runtime collector of m's names.
func (m *Metrics) NewRuntimeCollector() prometheus.Collector {
	d := func(dotted, help string) *prometheus.Desc { return prometheus.NewDesc(m.name(dotted), help, nil, nil) }
	return &runtimeCollector{
		goroutines:  d("nomad.runtime.num_goroutines", "Goroutines."),
		alloc:       d("nomad.runtime.alloc_bytes", "Bytes of allocated heap objects."),
		sys:         d("nomad.runtime.sys_bytes", "Bytes obtained from the OS."),
		mallocs:     d("nomad.runtime.malloc_count", "Heap objects allocated, cumulative."),
		frees:       d("nomad.runtime.free_count", "Heap objects freed, cumulative."),
		heapObjects: d("nomad.runtime.heap_objects", "Live heap objects."),
		pauseTotal:  d("nomad.runtime.total_gc_pause_ns", "GC stop-the-world pause time, cumulative (ns)."),
		gcRuns:      d("nomad.runtime.total_gc_runs", "Completed GC cycles."),
		lastPause:   d("nomad.runtime.gc_pause_ns", "The last GC pause (ns)."),
	}
}

func (c *runtimeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.goroutines, c.alloc, c.sys, c.mallocs, c.frees, c.heapObjects, c.pauseTotal, c.gcRuns, c.lastPause} {
		ch <- d
	}
}

func (c *runtimeCollector) Collect(ch chan<- prometheus.Metric) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	g := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	g(c.goroutines, float64(runtime.NumGoroutine()))
	g(c.alloc, float64(ms.Alloc))
	g(c.sys, float64(ms.Sys))
	g(c.mallocs, float64(ms.Mallocs))
	g(c.frees, float64(ms.Frees))
	g(c.heapObjects, float64(ms.HeapObjects))
	g(c.pauseTotal, float64(ms.PauseTotalNs))
	g(c.gcRuns, float64(ms.NumGC))
	g(c.lastPause, float64(ms.PauseNs[(ms.NumGC+255)%256]))
}
