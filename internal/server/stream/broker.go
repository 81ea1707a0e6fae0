package stream

import (
	"context"
	"errors"
	"sort"
	"sync"

	"github.com/drover-project/drover/internal/structs"
)

// DefaultBufferSize is the number of batches retained for late or
// resuming subscribers, as Nomad's event_buffer_size. The batches hold
// the objects they carry, so the ring bounds that memory too.
const DefaultBufferSize = 100

// ErrSubscriptionDropped is returned to a subscriber that fell further
// behind than the buffer holds.
var ErrSubscriptionDropped = errors.New("event stream: subscriber fell behind the buffer and was dropped; subscribe again")

// ErrBrokerClosed is returned once the broker shut down.
var ErrBrokerClosed = errors.New("event stream: server shutting down")

// Broker holds the ring of published batches.
type Broker struct {
	mu     sync.Mutex
	ring   []*structs.Events
	oldest uint64 // sequence number of the oldest retained batch
	next   uint64 // sequence number the next batch gets
	// published is closed and replaced on every publish, waking readers.
	published chan struct{}
	closed    bool
}

// New returns a broker retaining size batches (DefaultBufferSize if <= 0).
func New(size int) *Broker {
	if size <= 0 {
		size = DefaultBufferSize
	}
	return &Broker{ring: make([]*structs.Events, size), published: make(chan struct{})}
}

// Publish appends a batch. It never blocks on subscribers; empty batches
// are ignored.
func (b *Broker) Publish(batch *structs.Events) {
	if batch == nil || len(batch.Events) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.ring[b.next%uint64(len(b.ring))] = batch
	b.next++
	if b.next-b.oldest > uint64(len(b.ring)) {
		b.oldest = b.next - uint64(len(b.ring))
	}
	close(b.published)
	b.published = make(chan struct{})
}

// LastIndex is the index of the newest batch (0 when none).
func (b *Broker) LastIndex() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.next == b.oldest {
		return 0
	}
	return b.at(b.next - 1).Index
}

// Close wakes every subscriber with ErrBrokerClosed.
func (b *Broker) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.published)
	}
}

func (b *Broker) at(seq uint64) *structs.Events { return b.ring[seq%uint64(len(b.ring))] }

// startSeq is the sequence of the first retained batch at or after index
// (the oldest retained when index is older, or 0).
func (b *Broker) startSeq(index uint64) uint64 {
	n := int(b.next - b.oldest)
	i := sort.Search(n, func(i int) bool { return b.at(b.oldest+uint64(i)).Index >= index })
	return b.oldest + uint64(i)
}

// Subscribe starts a subscription at the request's index.
func (b *Broker) Subscribe(req *structs.EventStreamRequest) *Subscription {
	b.mu.Lock()
	defer b.mu.Unlock()
	return &Subscription{b: b, next: b.startSeq(req.Index), filter: newFilter(req)}
}

// Subscription reads batches from a broker, keeping only the events its
// filter matches.
type Subscription struct {
	b      *Broker
	next   uint64
	filter filter
}

// Next returns the next batch with at least one matching event, waiting
// until one is published or ctx ends.
func (s *Subscription) Next(ctx context.Context) (*structs.Events, error) {
	for {
		batch, wake, err := s.poll()
		if err != nil || batch != nil {
			return batch, err
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// poll returns the next matching batch if one is buffered, or the channel
// that wakes when another is published.
func (s *Subscription) poll() (*structs.Events, <-chan struct{}, error) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.b.closed {
		return nil, nil, ErrBrokerClosed
	}
	if s.next < s.b.oldest {
		return nil, nil, ErrSubscriptionDropped
	}
	for ; s.next < s.b.next; s.next++ {
		if matched := s.filter.apply(s.b.at(s.next)); matched != nil {
			s.next++
			return matched, nil, nil
		}
	}
	return nil, s.b.published, nil
}
