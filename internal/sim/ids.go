package sim

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sync"
)

// idSource makes UUID-shaped IDs from the seed, so two runs with the same
// seed name everything the same way.
//
// The server's IDs (endpoints, reapers, deployment watcher) come from one
// seeded stream, consumed in a fixed order since the simulator steps every
// duty itself. The schedulers' IDs (allocs, blocked and follow-up evals,
// deployments) are instead derived from the eval being processed and how
// many times it has been processed, so they stay the same even when the
// order of duties changes (or, in real time, goroutines interleave).
type idSource struct {
	seed uint64

	mu     sync.Mutex
	stream *rand.Rand
	runs   map[string]int // eval ID -> times handed to a scheduler
}

func newIDSource(seed int64) *idSource {
	s := uint64(seed)
	return &idSource{seed: s, stream: rand.New(rand.NewPCG(s, 0x5eed)), runs: map[string]int{}}
}

// next is the server's ID source.
func (s *idSource) next() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return formatUUID(s.stream.Uint64(), s.stream.Uint64())
}

// forEval returns the ID source for one scheduler run of an eval.
func (s *idSource) forEval(evalID string) func() string {
	s.mu.Lock()
	s.runs[evalID]++
	run := s.runs[evalID]
	s.mu.Unlock()
	h := fnv.New64a()
	fmt.Fprintf(h, "%s#%d", evalID, run)
	r := rand.New(rand.NewPCG(s.seed, h.Sum64()))
	var mu sync.Mutex
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return formatUUID(r.Uint64(), r.Uint64())
	}
}

// nodeID names a simulated node stably from its name.
func nodeID(seed int64, name string) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "node/%d/%s", seed, name)
	a := h.Sum64()
	h.Write([]byte("/2"))
	return formatUUID(a, h.Sum64())
}

// formatUUID shapes 128 bits as a version-4 UUID string.
func formatUUID(hi, lo uint64) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], hi)
	binary.BigEndian.PutUint64(b[8:], lo)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
