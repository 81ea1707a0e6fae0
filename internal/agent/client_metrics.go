package agent

import (
	"maps"

	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/telemetry"
)

// clientGauges are Nomad's nomad.client.* gauges of the local client: the
// node's allocated and unallocated resources, the host's memory, CPU and
// disks, and each task's measured use. Read at scrape time.
func (h *HTTPServer) clientGauges() []telemetry.Gauge {
	c := h.client()
	if c == nil {
		return nil
	}
	node := c.Node()
	nodeLabels := map[string]string{"node_id": node.ID, "datacenter": node.Datacenter, "node_class": node.NodeClass}
	var g []telemetry.Gauge
	add := func(name string, v float64, labels map[string]string) {
		g = append(g, telemetry.Gauge{Name: name, Value: v, Labels: labels})
	}
	var cpu, mem, disk int64
	usage := c.AllocsUsage()
	for _, u := range usage {
		if u.Alloc.ClientTerminalStatus() || u.Alloc.AllocatedResources == nil {
			continue
		}
		for _, t := range u.Alloc.AllocatedResources.Tasks {
			cpu += t.CpuShares
			mem += t.MemoryMB
		}
		disk += u.Alloc.AllocatedResources.Shared.DiskMB
	}
	allocs, nodeMetrics := !h.metricsOff.allocs, !h.metricsOff.node
	if r := node.NodeResources; r != nil && nodeMetrics {
		add("nomad.client.allocated.cpu", float64(cpu), nodeLabels)
		add("nomad.client.unallocated.cpu", float64(r.CPU.CpuShares-cpu), nodeLabels)
		add("nomad.client.allocated.memory", float64(mem), nodeLabels)
		add("nomad.client.unallocated.memory", float64(r.MemoryMB-mem), nodeLabels)
		add("nomad.client.allocated.disk", float64(disk), nodeLabels)
		add("nomad.client.unallocated.disk", float64(r.DiskMB-disk), nodeLabels)
	}
	if nodeMetrics {
		hostGauges(c, add, nodeLabels)
		add("nomad.client.allocations.running", float64(countRunning(usage)), nodeLabels)
	}
	if !allocs {
		return g
	}
	for _, u := range usage {
		for task, s := range u.Tasks {
			if s == nil {
				continue
			}
			l := map[string]string{"alloc_id": u.Alloc.ID, "job": u.Alloc.JobID, "task_group": u.Alloc.TaskGroup,
				"task": task, "namespace": u.Alloc.Namespace, "node_id": node.ID}
			add("nomad.client.allocs.memory.rss", float64(s.MemoryRSSBytes), l)
			add("nomad.client.allocs.memory.usage", float64(s.MemoryUsageBytes), l)
			add("nomad.client.allocs.memory.max_usage", float64(s.MemoryMaxUsageBytes), l)
			add("nomad.client.allocs.cpu.total_ticks", float64(s.CPUTotalNanos)/1e6, l)
			add("nomad.client.allocs.cpu.user", float64(s.CPUUserNanos)/1e6, l)
			add("nomad.client.allocs.cpu.system", float64(s.CPUSystemNanos)/1e6, l)
			// Percent of one core since the previous reading (none at
			// the first), as Nomad's total_percent.
			if prev, ok := h.metricSamples.swap(u.Alloc.ID+"/"+task, s); ok {
				if wall := float64(s.Timestamp.Sub(prev.Timestamp).Nanoseconds()); wall > 0 {
					add("nomad.client.allocs.cpu.total_percent", pct(s.CPUTotalNanos, prev.CPUTotalNanos, wall), l)
				}
			}
		}
	}
	return g
}

func countRunning(usage []client.AllocUsage) int {
	n := 0
	for _, u := range usage {
		if u.Alloc.ClientStatus == structs.AllocClientStatusRunning {
			n++
		}
	}
	return n
}

// hostGauges are the host's nomad.client.host.* gauges: memory, CPU per
// core (percent since the previous sample), disks and uptime, from the
// same sampler as /v1/client/stats.
func hostGauges(c *client.Client, add func(string, float64, map[string]string), nodeLabels map[string]string) {
	hs, err := c.HostStats()
	if err != nil {
		return
	}
	m := hs.Memory
	for name, v := range map[string]uint64{"total": m.Total, "available": m.Available, "free": m.Free, "used": m.Used} {
		add("nomad.client.host.memory."+name, float64(v), nodeLabels)
	}
	for _, core := range hs.CPU {
		l := maps.Clone(nodeLabels)
		l["cpu"] = core.Name
		add("nomad.client.host.cpu.user", core.User, l)
		add("nomad.client.host.cpu.system", core.System, l)
		add("nomad.client.host.cpu.idle", core.Idle, l)
		add("nomad.client.host.cpu.total", core.User+core.System, l)
	}
	for _, d := range hs.Disks {
		l := maps.Clone(nodeLabels)
		l["disk"], l["mountpoint"] = d.Device, d.Mountpoint
		add("nomad.client.host.disk.size", float64(d.Size), l)
		add("nomad.client.host.disk.used", float64(d.Used), l)
		add("nomad.client.host.disk.available", float64(d.Available), l)
		add("nomad.client.host.disk.used_percent", d.UsedPercent, l)
	}
	add("nomad.client.uptime", float64(hs.Uptime), nodeLabels)
}
