package client

import (
	"sort"
	"syscall"
	"time"

	"github.com/drover-project/drover/internal/client/allocrunner"
)

// GCConfig is when a client destroys finished allocs on its own (the
// agent's client gc_* keys), besides the explicit /v1/client/gc.
type GCConfig struct {
	// Interval is how often the client looks (0: never on its own).
	Interval time.Duration
	// MaxAllocs: with more allocs than this on the node, the oldest
	// finished ones are destroyed until it holds MaxAllocs (0: no cap).
	MaxAllocs int
	// DiskUsageThreshold and InodeUsageThreshold (percent of the alloc
	// dir's filesystem): past either, finished allocs are destroyed,
	// oldest first, until use is below it (0: off).
	DiskUsageThreshold  float64
	InodeUsageThreshold float64
	// ParallelDestroys bounds how many allocs are destroyed at once
	// (0: one at a time).
	ParallelDestroys int
	// Usage reads the disk and inode use of dir in percent; nil reads the
	// filesystem (statfs). Tests inject one.
	Usage func(dir string) (disk, inodes float64, err error)
}

// gcLoop runs the automatic garbage collection every GC.Interval.
func (c *Client) gcLoop() {
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.clock.After(c.cfg.GC.Interval):
		}
		if n, err := c.GCPass(); err != nil {
			c.logger.Warn("client gc", "error", err)
		} else if n > 0 {
			c.logger.Debug("client gc destroyed finished allocs", "count", n)
		}
	}
}

// GCPass is one automatic collection: finished allocs past the node's
// alloc cap, then past the disk and inode thresholds, oldest first. It
// returns how many it destroyed.
func (c *Client) GCPass() (int, error) {
	g := c.cfg.GC
	all := c.allRunners()
	var done []*allocrunner.Runner
	for _, r := range all {
		if finished(r) {
			done = append(done, r)
		}
	}
	// Oldest first: the alloc the servers created first.
	sort.Slice(done, func(i, j int) bool { return done[i].Alloc().CreateIndex < done[j].Alloc().CreateIndex })
	n := 0
	if g.MaxAllocs > 0 && len(all) > g.MaxAllocs {
		n = min(len(all)-g.MaxAllocs, len(done))
	}
	if err := c.collectN(done[:n], g.ParallelDestroys); err != nil {
		return n, err
	}
	done = done[n:]
	if g.DiskUsageThreshold <= 0 && g.InodeUsageThreshold <= 0 {
		return n, nil
	}
	usage := g.Usage
	if usage == nil {
		usage = statfsUsage
	}
	for len(done) > 0 {
		disk, inodes, err := usage(c.cfg.AllocDir)
		if err != nil {
			return n, err
		}
		if !(g.DiskUsageThreshold > 0 && disk > g.DiskUsageThreshold) && !(g.InodeUsageThreshold > 0 && inodes > g.InodeUsageThreshold) {
			break
		}
		if err := c.collectN(done[:1], 1); err != nil {
			return n, err
		}
		done, n = done[1:], n+1
	}
	return n, nil
}

// statfsUsage is the percent of dir's filesystem's blocks and inodes in
// use.
func statfsUsage(dir string) (disk, inodes float64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, err
	}
	pct := func(total, free uint64) float64 {
		if total == 0 {
			return 0
		}
		return 100 * float64(total-free) / float64(total)
	}
	return pct(st.Blocks, st.Bavail), pct(st.Files, st.Ffree), nil
}
