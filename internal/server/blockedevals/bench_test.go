package blockedevals

import (
	"fmt"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// collector is an Enqueuer that keeps what was released so the benchmark
// can block it again.
type collector struct{ released []*structs.Evaluation }

func (c *collector) EnqueueAll(evals map[*structs.Evaluation]string) {
	for ev := range evals {
		c.released = append(c.released, ev)
	}
}

// BenchmarkUnblock measures one Unblock over 10k blocked evals spread over
// 100 classes. "indexed": every eval has seen every class (eligible for
// one), so the eligible index answers. "scan": every eval has one unknown
// class, forcing the scan of all captured evals.
func BenchmarkUnblock(b *testing.B) {
	const evals, classes = 10_000, 100
	for _, mode := range []string{"indexed", "scan"} {
		b.Run(mode, func(b *testing.B) {
			col := &collector{}
			tr := New(col, clock.NewManual(time.Unix(0, 0)))
			tr.SetEnabled(true)
			for i := range evals {
				tr.Block(benchEval(i, classes, mode == "scan"))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				tr.Unblock(fmt.Sprintf("c%d", i%classes), uint64(i+1))
				b.StopTimer()
				for _, ev := range col.released {
					tr.Block(ev) // SnapshotIndex 0: tracked again, not re-released
				}
				col.released = col.released[:0]
				b.StartTimer()
			}
		})
	}
}

// benchEval is eligible for class i%classes and ineligible for the others,
// except, when withUnknown, one class it has never seen.
func benchEval(i, classes int, withUnknown bool) *structs.Evaluation {
	elig := make(map[string]bool, classes)
	for c := range classes {
		elig[fmt.Sprintf("c%d", c)] = c == i%classes
	}
	if withUnknown {
		delete(elig, fmt.Sprintf("c%d", (i+1)%classes))
	}
	return &structs.Evaluation{
		ID: fmt.Sprintf("e%d", i), Namespace: "default", JobID: fmt.Sprintf("j%d", i),
		Status: structs.EvalStatusBlocked, ClassEligibility: elig,
	}
}
