package broker

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// TestBroker_ConcurrentWorkers runs many workers against a real clock
// (short nack delays) and checks that no eval is held by two workers at
// once, no job has two evals in flight, and every eval ends acked exactly
// once or superseded (cancelable), never both, never lost.
func TestBroker_ConcurrentWorkers(t *testing.T) {
	const (
		numEvals   = 2000
		numJobs    = 60
		numWorkers = 16
		numFeeders = 4
	)
	b := New(Config{InitialNackDelay: time.Millisecond, SubsequentNackDelay: 2 * time.Millisecond}, clock.Real{})
	b.SetEnabled(true)

	rng := rand.New(rand.NewSource(1))
	evals := make([]*structs.Evaluation, numEvals)
	for i := range evals {
		typ := []string{"service", "batch"}[rng.Intn(2)]
		job := fmt.Sprintf("job-%d", rng.Intn(numJobs))
		if typ == "batch" {
			job = "b" + job // a job has one type
		}
		evals[i] = mkEval(fmt.Sprintf("eval-%04d", i), typ, job, 1+rng.Intn(100), uint64(i+1))
	}

	var (
		mu       sync.Mutex
		inflight = map[string]bool{} // eval IDs held by a worker
		jobsBusy = map[jobKey]bool{}
		acked    = map[string]int{}
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var wg sync.WaitGroup
	for w := 0; w < numWorkers; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed))
			for {
				e, tok, err := b.Dequeue(ctx, []string{"service", "batch", FailedQueue})
				if err != nil {
					return
				}
				mu.Lock()
				if inflight[e.ID] {
					t.Errorf("eval %s delivered to two workers", e.ID)
				}
				if jobsBusy[keyOf(e)] {
					t.Errorf("job of %s has two evals in flight", e.ID)
				}
				inflight[e.ID], jobsBusy[keyOf(e)] = true, true
				nack := rng.Intn(5) == 0
				mu.Unlock()

				// Release our claim before the broker can hand it out again.
				mu.Lock()
				delete(inflight, e.ID)
				delete(jobsBusy, keyOf(e))
				if !nack {
					acked[e.ID]++
				}
				mu.Unlock()
				if nack {
					err = b.Nack(e.ID, tok)
				} else {
					err = b.Ack(e.ID, tok)
				}
				if err != nil {
					t.Errorf("ack/nack %s: %v", e.ID, err)
				}
			}
		}(int64(w))
	}
	for f := 0; f < numFeeders; f++ {
		wg.Add(1)
		go func(f int) {
			defer wg.Done()
			for i := f; i < numEvals; i += numFeeders {
				b.Enqueue(evals[i])
			}
		}(f)
	}

	canceled := map[string]bool{}
	testutil.WaitFor(t, 30*time.Second, "every eval accounted for", func() (bool, string) {
		for _, e := range b.Cancelable(0) {
			canceled[e.ID] = true
		}
		mu.Lock()
		defer mu.Unlock()
		return len(acked)+len(canceled) >= numEvals, fmt.Sprintf("stats %+v", b.Stats())
	})
	cancel()
	wg.Wait()

	for id, n := range acked {
		if n != 1 || canceled[id] {
			t.Errorf("eval %s acked %d times, canceled %v", id, n, canceled[id])
		}
	}
	if len(acked)+len(canceled) != numEvals {
		t.Errorf("acked %d + canceled %d != %d evals", len(acked), len(canceled), numEvals)
	}
	wantStats(t, b, 0, 0, 0, 0, 0)
	if len(canceled) == 0 {
		t.Error("expected some superseded evals with so few jobs")
	}
	t.Logf("acked %d, superseded %d", len(acked), len(canceled))
}
