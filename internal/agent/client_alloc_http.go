package agent

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/server"
)

func (h *HTTPServer) clientAllocRoutes() {
	h.allocHandler("GET /v1/client/allocation/{id}/stats", h.allocStats)
	for _, m := range []string{"PUT", "POST"} {
		h.allocHandler(m+" /v1/client/allocation/{id}/restart", h.allocRestart)
		h.allocHandler(m+" /v1/client/allocation/{id}/signal", h.allocSignal)
	}
}

func (h *HTTPServer) allocRestart(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	var req api.AllocationRestartRequest
	if err := decodeOptionalBody(w, r, &req); err != nil {
		return nil, err
	}
	if req.AllTasks && req.TaskName != "" {
		return nil, server.BadRequest("TaskName and AllTasks cannot both be set")
	}
	// AllTasks restarts every task the client runs, which is what an
	// empty task name already does here.
	return struct{}{}, clientError(c.AllocRestart(allocID, req.TaskName))
}

func (h *HTTPServer) allocSignal(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	var req api.AllocSignalRequest
	if err := decodeOptionalBody(w, r, &req); err != nil {
		return nil, err
	}
	if req.Signal == "" {
		return nil, server.BadRequest("Signal is required (e.g. SIGHUP)")
	}
	return struct{}{}, clientError(c.AllocSignal(allocID, req.Task, req.Signal))
}

// decodeOptionalBody decodes a JSON body strictly, but an empty body
// leaves out at its zero value (curl -X POST with no data is common).
func decodeOptionalBody(w http.ResponseWriter, r *http.Request, out any) error {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBodyBytes))
	if err != nil {
		return bodyError(err)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	return decodeBody(w, r, out)
}

func (h *HTTPServer) allocStats(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	stats, err := c.AllocStats(allocID)
	if err != nil {
		return nil, clientError(err)
	}
	mhzPerCore := 0.0
	if res := c.Node().NodeResources; res != nil && res.CPU.TotalCpuCores > 0 {
		mhzPerCore = float64(res.CPU.CpuShares) / float64(res.CPU.TotalCpuCores)
	}
	out := &api.AllocResourceUsage{
		ResourceUsage: &api.ResourceUsage{MemoryStats: &api.MemoryStats{}, CpuStats: &api.CpuStats{}},
		Tasks:         map[string]*api.TaskResourceUsage{},
		Timestamp:     time.Now().UnixNano(),
	}
	for task, s := range stats {
		if s == nil {
			continue
		}
		ru := taskUsage(h.cpuSamples, allocID+"/"+task, s, mhzPerCore)
		out.Tasks[task] = &api.TaskResourceUsage{ResourceUsage: ru, Timestamp: s.Timestamp.UnixNano(), Pids: map[string]*api.ResourceUsage{}}
		addUsage(out.ResourceUsage, ru)
	}
	return out, nil
}

// Nomad's names for the measured fields, per drivers.Measured* name.
var measuredNames = map[string]string{
	drivers.MeasuredMemRSS: "RSS", drivers.MeasuredMemUsage: "Usage", drivers.MeasuredMemMaxUsage: "Max Usage",
	drivers.MeasuredCPUUser: "User Mode", drivers.MeasuredCPUSystem: "System Mode", drivers.MeasuredCPUTotal: "Percent",
}

// taskUsage converts one sample. Drivers report cumulative CPU time;
// Nomad reports percentages, so the rate comes from this sample and the
// previous one of the same task in samples (none on the first request).
func taskUsage(samples *sampleCache, key string, s *drivers.TaskStats, mhzPerCore float64) *api.ResourceUsage {
	mem := &api.MemoryStats{RSS: s.MemoryRSSBytes, Usage: s.MemoryUsageBytes, MaxUsage: s.MemoryMaxUsageBytes}
	cpu := &api.CpuStats{}
	for _, m := range s.Measured {
		name := measuredNames[m]
		switch {
		case name == "":
		case m == drivers.MeasuredMemRSS || m == drivers.MeasuredMemUsage || m == drivers.MeasuredMemMaxUsage:
			mem.Measured = append(mem.Measured, name)
		default:
			cpu.Measured = append(cpu.Measured, name)
		}
	}
	if prev, ok := samples.swap(key, s); ok {
		wall := float64(s.Timestamp.Sub(prev.Timestamp).Nanoseconds())
		if wall > 0 {
			cpu.UserMode = pct(s.CPUUserNanos, prev.CPUUserNanos, wall)
			cpu.SystemMode = pct(s.CPUSystemNanos, prev.CPUSystemNanos, wall)
			cpu.Percent = pct(s.CPUTotalNanos, prev.CPUTotalNanos, wall)
			cpu.TotalTicks = cpu.Percent / 100 * mhzPerCore
		}
	}
	return &api.ResourceUsage{MemoryStats: mem, CpuStats: cpu}
}

// pct is the share of wall time a cumulative counter grew by (a counter
// that went back, after a restart, counts as zero).
func pct(cur, prev uint64, wall float64) float64 {
	if cur < prev {
		return 0
	}
	return float64(cur-prev) / wall * 100
}

// addUsage sums a task's usage into the alloc's.
func addUsage(sum, ru *api.ResourceUsage) {
	sum.MemoryStats.RSS += ru.MemoryStats.RSS
	sum.MemoryStats.Usage += ru.MemoryStats.Usage
	sum.MemoryStats.MaxUsage += ru.MemoryStats.MaxUsage
	sum.CpuStats.UserMode += ru.CpuStats.UserMode
	sum.CpuStats.SystemMode += ru.CpuStats.SystemMode
	sum.CpuStats.Percent += ru.CpuStats.Percent
	sum.CpuStats.TotalTicks += ru.CpuStats.TotalTicks
	sum.MemoryStats.Measured = union(sum.MemoryStats.Measured, ru.MemoryStats.Measured)
	sum.CpuStats.Measured = union(sum.CpuStats.Measured, ru.CpuStats.Measured)
}

func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// sampleCache keeps each task's last CPU sample for rate computation; the
// agent's HTTP server owns one. Entries unused for sampleTTL are dropped so
// finished tasks do not pile up.
type sampleCache struct {
	mu   sync.Mutex
	last map[string]cachedSample
}

type cachedSample struct {
	s    drivers.TaskStats
	seen time.Time
}

const sampleTTL = 10 * time.Minute

func newSampleCache() *sampleCache { return &sampleCache{last: map[string]cachedSample{}} }

// swap stores s for key and returns the previous sample, if any.
func (c *sampleCache) swap(key string, s *drivers.TaskStats) (drivers.TaskStats, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	for k, v := range c.last {
		if now.Sub(v.seen) > sampleTTL {
			delete(c.last, k)
		}
	}
	prev, ok := c.last[key]
	c.last[key] = cachedSample{s: *s, seen: now}
	return prev.s, ok
}
