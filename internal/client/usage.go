package client

import (
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// AllocUsage is one alloc's measured use, for the client's metrics.
type AllocUsage struct {
	Alloc *structs.Allocation
	Tasks map[string]*drivers.TaskStats
}

// AllocsUsage samples every alloc this client runs.
func (c *Client) AllocsUsage() []AllocUsage {
	runners := c.allRunners()
	out := make([]AllocUsage, 0, len(runners))
	for _, r := range runners {
		out = append(out, AllocUsage{Alloc: r.Alloc(), Tasks: r.TaskStats()})
	}
	return out
}
