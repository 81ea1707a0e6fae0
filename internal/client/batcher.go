package client

import (
	"context"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// updateBatcher coalesces alloc status updates: the first update after a
// send arms a timer (UpdateBatchInterval on the clock) and everything
// queued until it fires goes in one UpdateAllocs call, so the servers
// make one raft write per batch. A newer update of an alloc replaces the
// queued one.
type updateBatcher struct {
	c       *Client
	mu      sync.Mutex
	pending map[string]*structs.Allocation
	armed   bool
	fire    chan struct{}
}

func newUpdateBatcher(c *Client) *updateBatcher {
	return &updateBatcher{c: c, pending: map[string]*structs.Allocation{}, fire: make(chan struct{}, 1)}
}

// queue is the alloc runners' OnUpdate.
func (b *updateBatcher) queue(a *structs.Allocation) {
	a.NodeID = b.c.nodeID
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending[a.ID] = a
	b.armLocked(b.c.cfg.UpdateBatchInterval)
}

func (b *updateBatcher) armLocked(d time.Duration) {
	if b.armed {
		return
	}
	b.armed = true
	b.c.clock.AfterFunc(d, func() {
		select {
		case b.fire <- struct{}{}:
		default:
		}
	})
}

// take empties the queue.
func (b *updateBatcher) take() []*structs.Allocation {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.armed = false
	out := make([]*structs.Allocation, 0, len(b.pending))
	for _, a := range b.pending {
		out = append(out, a)
	}
	b.pending = map[string]*structs.Allocation{}
	return out
}

// requeue puts back a batch that failed to send, unless newer updates of
// the same allocs arrived meanwhile, and retries after delay.
func (b *updateBatcher) requeue(batch []*structs.Allocation, delay time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range batch {
		if _, newer := b.pending[a.ID]; !newer {
			b.pending[a.ID] = a
		}
	}
	b.armLocked(delay)
}

// loop sends batches once the node is registered.
func (b *updateBatcher) loop() {
	select {
	case <-b.c.registered:
	case <-b.c.ctx.Done():
		return
	}
	failures := 0
	for {
		select {
		case <-b.fire:
		case <-b.c.ctx.Done():
			return
		}
		batch := b.take()
		if len(batch) == 0 {
			continue
		}
		if err := b.send(b.c.ctx, batch); err != nil {
			if b.c.ctx.Err() != nil {
				b.requeue(batch, 0)
				return
			}
			failures++
			b.c.logger.Warn("alloc update failed", "error", err, "allocs", len(batch), "attempt", failures)
			b.requeue(batch, backoff(failures, 30*time.Second))
			continue
		}
		failures = 0
	}
}

func (b *updateBatcher) send(ctx context.Context, batch []*structs.Allocation) error {
	_, err := b.c.servers.UpdateAllocs(ctx, &structs.AllocClientUpdateArgs{NodeID: b.c.nodeID, SecretID: b.c.secretID, Allocs: batch})
	return err
}

// flushFinal makes one bounded attempt to send what is queued at shutdown.
func (b *updateBatcher) flushFinal() {
	batch := b.take()
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.send(ctx, batch); err != nil {
		b.c.logger.Warn("final alloc update failed", "error", err)
	}
}
