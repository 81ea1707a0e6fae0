package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// runHeartbeats (g) makes every node heartbeat the way a client does:
// once to arm its timer, then again each time the TTL the server answered
// runs out. After the first round it measures the process's CPU time over
// spec.Window: the leader's heartbeat handling plus the (cheap) in-process
// callers, so an upper bound of the leader's share.
//
// The first round arms every node at once, which a real cluster never
// does (its nodes started at different times), so each node's second
// beat comes at a random point within its first TTL: the window then
// sees the steady rate the TTLs are sized for (about 50 beats/s), even
// when it is shorter than a TTL (-quick).
func runHeartbeats(c *Cluster, res *Result) error {
	hb := &heartbeater{c: c, timers: map[string]*time.Timer{}, rng: rand.New(rand.NewPCG(1, 2))}
	defer hb.stop()
	for _, n := range c.Nodes {
		if err := hb.beat(n, true); err != nil {
			return err
		}
	}
	startCPU, start := cpuTime(), time.Now()
	startBeats := hb.count.Load()
	time.Sleep(res.Window)
	if err := hb.error(); err != nil {
		return err
	}
	res.Elapsed = time.Since(start)
	res.CPUCores = (cpuTime() - startCPU).Seconds() / res.Elapsed.Seconds()
	res.Heartbeats = int(hb.count.Load() - startBeats)
	res.PerSecond = float64(res.Heartbeats) / res.Elapsed.Seconds()
	return nil
}

// heartbeater re-arms one timer per node at the TTL of its last answer.
type heartbeater struct {
	c       *Cluster
	count   atomic.Int64
	mu      sync.Mutex
	stopped bool
	timers  map[string]*time.Timer
	rng     *rand.Rand // the first round's offsets; under mu
	err     error
}

func (h *heartbeater) beat(n *structs.Node, first bool) error {
	reply, err := server.NodeUpdateStatus.Call(context.Background(), h.c.Srv, &structs.NodeHeartbeatArgs{NodeID: n.ID, SecretID: n.SecretID})
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		h.err = fmt.Errorf("heartbeat %s: %w", n.ID, err)
		return h.err
	}
	h.count.Add(1)
	next := reply.HeartbeatTTL
	if first && next > 0 {
		next = time.Duration(h.rng.Int64N(int64(next)))
	}
	if !h.stopped {
		h.timers[n.ID] = time.AfterFunc(next, func() { _ = h.beat(n, false) })
	}
	return nil
}

func (h *heartbeater) error() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

func (h *heartbeater) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopped = true
	for _, t := range h.timers {
		t.Stop()
	}
}

// gcCPUTime is the runtime's estimate of the CPU time the garbage
// collector has used so far (its mark workers, assists and pauses).
func gcCPUTime() time.Duration {
	sample := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return time.Duration(sample[0].Value.Float64() * float64(time.Second))
}

// cpuTime is the user plus system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
