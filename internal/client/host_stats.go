package client

import (
	"sync"

	"github.com/drover-project/drover/internal/client/hoststats"
)

// hostStatsCollector is the host collector, created on first use: it keeps the
// previous CPU sample so each answer is use since the last one.
type hostStatsCollector struct {
	once sync.Once
	c    *hoststats.Collector
}

// HostStats samples the client's host (/v1/client/stats).
func (c *Client) HostStats() (*hoststats.Stats, error) {
	c.hostStats.once.Do(func() {
		var mhz float64
		if n := c.Node(); n != nil && n.NodeResources != nil {
			mhz = float64(n.NodeResources.CPU.CpuShares)
		}
		c.hostStats.c = hoststats.New("/proc", c.cfg.AllocDir, mhz)
	})
	return c.hostStats.c.Collect()
}
