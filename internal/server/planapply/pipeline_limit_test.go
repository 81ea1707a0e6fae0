package planapply

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
)

// The pipeline takes no more than maxPipeline plans between dequeue and
// answer, counting the plans waiting on an entry as well as the entries in
// raft; once entries settle it takes the rest. Here the first plan fills
// n1 and is held in raft; every later plan is rejected on top of it and
// waits for its outcome. synctest.Wait returns once the applier is idle,
// so the counts are exact.
func TestPipeline_FullPipelineStopsTakingPlansUntilEntriesSettle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, g, job := pipelineFixture(t)
		var futures []PlanFuture
		for i := range maxPipeline + 1 {
			p := h.plan(fmt.Sprintf("eval-%d", i), job)
			addTo(&p.NodeAllocation, mockAlloc(fmt.Sprintf("w%d", i), job, "n1", 800, 100, 100))
			f, err := h.queue.Enqueue(p)
			h.must(err)
			futures = append(futures, f)
		}
		stop := runApplier(h)
		defer stop()

		synctest.Wait()
		var inflight, waiting int
		h.step(func(a *Applier, _ context.Context) { inflight, waiting = len(a.inflight), len(a.waiting) })
		if inflight != 1 || waiting != maxPipeline-1 || h.queue.Stats() != 1 {
			t.Fatalf("full pipeline: %d in raft, %d waiting, %d still queued; want 1, %d, 1",
				inflight, waiting, h.queue.Stats(), maxPipeline-1)
		}

		g.commitNext(t)
		synctest.Wait()
		for i, f := range futures {
			if !answered(f) {
				t.Fatalf("plan %d not answered after the entry it waited on committed (%d still queued)", i, h.queue.Stats())
			}
		}
		if res, err := futures[maxPipeline].Wait(); err != nil || len(res.RejectedNodes) != 1 {
			t.Fatalf("the plan taken after the pipeline drained: %+v %v, want rejected on n1", res, err)
		}
	})
}
