package broker

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

func benchEvals(n, offset int, rng *rand.Rand) []*structs.Evaluation {
	evals := make([]*structs.Evaluation, n)
	for i := range evals {
		id := fmt.Sprintf("eval-%d", offset+i)
		evals[i] = mkEval(id, "service", "job-"+id, 1+rng.Intn(100), uint64(offset+i+1))
	}
	return evals
}

// benchCycle is one op: enqueue an eval of a new job, dequeue the best
// ready eval, ack it. Real clock and uuid tokens, as on a leader.
func benchCycle(b *testing.B, br *Broker, evals []*structs.Evaluation) {
	scheds := []string{"service", "batch"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		br.Enqueue(evals[i])
		e, tok, err := tryDequeue(br, scheds)
		if err != nil || e == nil {
			b.Fatalf("dequeue: %v %v", e, err)
		}
		if err := br.Ack(e.ID, tok); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBroker_EnqueueDequeueAck(b *testing.B) {
	br := New(Config{}, clock.Real{})
	br.SetEnabled(true)
	benchCycle(b, br, benchEvals(b.N, 0, rand.New(rand.NewSource(1))))
}

func BenchmarkBroker_EnqueueDequeueAck_1000Ready(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	br := New(Config{}, clock.Real{})
	br.SetEnabled(true)
	for _, e := range benchEvals(1000, 0, rng) {
		br.Enqueue(e)
	}
	benchCycle(b, br, benchEvals(b.N, 1000, rng))
}
