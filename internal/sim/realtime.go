package sim

import (
	"context"
	"time"
)

// startNodeLoop runs a real-time node: it heartbeats at its TTL and
// watches its allocs with blocking queries, reporting each change, as a
// real client does. Used only with Options.Realtime.
func (s *Sim) startNodeLoop(n *Node) {
	ctx, cancel := context.WithCancel(context.Background())
	s.loops.Add(2)
	go func() {
		defer s.loops.Done()
		<-s.stopped
		cancel()
	}()
	go func() {
		defer s.loops.Done()
		n.watchAllocs(ctx)
	}()
	s.loops.Add(1)
	go func() {
		defer s.loops.Done()
		n.heartbeatLoop(ctx)
	}()
}

// watchAllocs reports alloc changes until ctx ends. A silent node only
// polls, so it picks up where it left off when resumed.
func (n *Node) watchAllocs(ctx context.Context) {
	for ctx.Err() == nil {
		if n.isSilent() {
			sleepCtx(ctx, 20*time.Millisecond)
			continue
		}
		n.mu.Lock()
		index := n.index
		n.mu.Unlock()
		if _, err := n.report(ctx, index, time.Second); err != nil && ctx.Err() == nil {
			n.sim.opts.Logger.Warn("sim node report failed", "node", n.Name, "error", err)
			sleepCtx(ctx, 50*time.Millisecond)
		}
	}
}

// heartbeatLoop heartbeats at the TTL while the node is not silent.
func (n *Node) heartbeatLoop(ctx context.Context) {
	for {
		n.mu.Lock()
		ttl := n.ttl
		n.mu.Unlock()
		if !sleepCtx(ctx, max(ttl, 100*time.Millisecond)) {
			return
		}
		if !n.isSilent() {
			if err := n.heartbeat(); err != nil && ctx.Err() == nil {
				n.sim.opts.Logger.Warn("sim heartbeat failed", "node", n.Name, "error", err)
			}
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
