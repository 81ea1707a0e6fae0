package exec

import (
	"path/filepath"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
)

// ticks are USER_HZ, which cpuacct.stat counts in.
const nanosPerTick = 1e7

// stats samples the cgroup, which covers the whole task tree.
func (c *cgroup) stats() *drivers.TaskStats {
	s := &drivers.TaskStats{Timestamp: time.Now()}
	if c.Version == CgroupV2 {
		c.statsV2(s)
	} else {
		c.statsV1(s)
	}
	return s
}

func (c *cgroup) statsV1(s *drivers.TaskStats) {
	mem, acct := c.Paths["memory"], c.Paths["cpuacct"]
	if n, ok := singleValue(filepath.Join(mem, "memory.usage_in_bytes")); ok {
		s.MemoryUsageBytes = n
		s.Measured = append(s.Measured, drivers.MeasuredMemUsage)
	}
	if n, ok := singleValue(filepath.Join(mem, "memory.max_usage_in_bytes")); ok {
		s.MemoryMaxUsageBytes = n
		s.Measured = append(s.Measured, drivers.MeasuredMemMaxUsage)
	}
	s.MemoryRSSBytes = keyedValue(filepath.Join(mem, "memory.stat"), "total_rss")
	s.Measured = append(s.Measured, drivers.MeasuredMemRSS)
	if acct == "" {
		return
	}
	if n, ok := singleValue(filepath.Join(acct, "cpuacct.usage")); ok {
		s.CPUTotalNanos = n
		s.Measured = append(s.Measured, drivers.MeasuredCPUTotal)
	}
	stat := filepath.Join(acct, "cpuacct.stat")
	s.CPUUserNanos = keyedValue(stat, "user") * nanosPerTick
	s.CPUSystemNanos = keyedValue(stat, "system") * nanosPerTick
	s.Measured = append(s.Measured, drivers.MeasuredCPUUser, drivers.MeasuredCPUSystem)
}

func (c *cgroup) statsV2(s *drivers.TaskStats) {
	dir := c.Paths["unified"]
	if n, ok := singleValue(filepath.Join(dir, "memory.current")); ok {
		s.MemoryUsageBytes = n
		s.Measured = append(s.Measured, drivers.MeasuredMemUsage)
	}
	if n, ok := singleValue(filepath.Join(dir, "memory.peak")); ok {
		s.MemoryMaxUsageBytes = n
		s.Measured = append(s.Measured, drivers.MeasuredMemMaxUsage)
	}
	s.MemoryRSSBytes = keyedValue(filepath.Join(dir, "memory.stat"), "anon")
	cpu := filepath.Join(dir, "cpu.stat")
	s.CPUTotalNanos = keyedValue(cpu, "usage_usec") * 1000
	s.CPUUserNanos = keyedValue(cpu, "user_usec") * 1000
	s.CPUSystemNanos = keyedValue(cpu, "system_usec") * 1000
	s.Measured = append(s.Measured, drivers.MeasuredMemRSS, drivers.MeasuredCPUTotal, drivers.MeasuredCPUUser, drivers.MeasuredCPUSystem)
}
