package scheduler

import (
	"io"
	"log/slog"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// BenchmarkSystemScheduler registers a system job on BenchmarkServiceScheduler's
// 5,000-node cluster (half of it feasible): one placement per node.
func BenchmarkSystemScheduler(b *testing.B) {
	h := benchCluster(b, 5000)
	j := benchJob(1, false)
	j.Type = structs.JobTypeSystem
	j.Canonicalize()
	job := h.upsertJob(j)
	snap := h.store.Snapshot()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	p := &benchPlanner{}
	system := Builtins(Deps{})[structs.JobTypeSystem]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := mockEval(job, structs.EvalTriggerJobRegister)
		if err := system(log, snap, p).Process(e); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportQuality(b, p.plan, false)
}
