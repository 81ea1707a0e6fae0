package planapply

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

const (
	benchNodes      = 100
	benchPerNode    = 10   // allocs already on every node
	benchResetEvery = 1000 // plans between store resets, to bound memory
)

// benchCluster is a harness with 100 nodes, each already running 10 allocs,
// and a stream of plans: plan k places size allocs round-robin over the
// nodes (with a port each) and stops the allocs plan k-1 placed, so the
// live state stays the same size however long the benchmark runs.
type benchCluster struct {
	h    *harness
	job  *structs.Job
	prev []*structs.Allocation
	seq  int
}

func newBenchCluster(b *testing.B) *benchCluster {
	h := newHarness(b)
	c := &benchCluster{h: h, job: mockJob("bench", 50)}
	h.upsertJob(c.job)
	var existing []*structs.Allocation
	for n := range benchNodes {
		id := fmt.Sprintf("node-%03d", n)
		h.upsertNode(mockNode(id))
		for i := range benchPerNode {
			existing = append(existing, withPort(mockAlloc(fmt.Sprintf("%s-e%d", id, i), c.job, id, 100, 100, 100), 20000+i))
		}
	}
	h.upsertAllocs(existing...)
	return c
}

func (c *benchCluster) nextPlan(size int) *structs.Plan {
	c.seq++
	plan := c.h.plan(fmt.Sprintf("eval-%d", c.seq), c.job)
	placed := make([]*structs.Allocation, size)
	for i := range size {
		node := fmt.Sprintf("node-%03d", (c.seq*size+i)%benchNodes)
		placed[i] = withPort(mockAlloc(fmt.Sprintf("p%d-%d", c.seq, i), c.job, node, 50, 50, 50), 30000+c.seq%2*1000+i)
	}
	addTo(&plan.NodeAllocation, placed...)
	for _, a := range c.prev {
		addTo(&plan.NodeUpdate, stopped(a))
	}
	c.prev = placed
	return plan
}

// BenchmarkPlanApply measures the whole applier step: token, snapshot,
// evaluate, build the entry, commit it to the state store (fake raft).
func BenchmarkPlanApply(b *testing.B) {
	for _, size := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("allocs=%d", size), func(b *testing.B) {
			c := newBenchCluster(b)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i > 0 && i%benchResetEvery == 0 {
					b.StopTimer()
					c = newBenchCluster(b)
					b.StartTimer()
				}
				res, err := c.h.submit(c.nextPlan(size))
				if err != nil || len(res.RejectedNodes) > 0 {
					b.Fatalf("plan failed: %v %+v", err, res)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "plans/s")
		})
	}
}

// BenchmarkEvaluatePlan measures evaluation alone, sequential (what the
// applier does) against one goroutine per node, to decide whether
// parallel evaluation pays.
func BenchmarkEvaluatePlan(b *testing.B) {
	for _, size := range []int{1, 10, 100} {
		c := newBenchCluster(b)
		plan := c.nextPlan(size)
		snap := c.h.store.Snapshot()
		b.Run(fmt.Sprintf("allocs=%d/sequential", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := evaluatePlan(snap, plan); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("allocs=%d/parallel", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := evaluateParallel(snap, plan); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// evaluateParallel is the candidate parallel evaluation, kept in the test
// only as the benchmark's point of comparison.
func evaluateParallel(snap StateReader, plan *structs.Plan) error {
	nodes := touchedNodes(plan)
	rejs := make([]*Rejection, len(nodes))
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, id := range nodes {
		wg.Go(func() { rejs[i], errs[i] = evaluateNode(snap, plan, id) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// commitLatency is what one raft write took in `drover bench -servers 3`
// (bbolt with fsync on every server, replication over loopback TCP).
const commitLatency = 17 * time.Millisecond

const latencyNodes = 1000

// BenchmarkPlanApplyCommitLatency measures the applier when every raft
// write takes commitLatency, serial against pipelined: 16 workers submit
// plans of 10 placements each on 1000 nodes (so each node holds only a
// few dozen allocs by the end), as fast as they are answered.
// The serial applier manages about one plan per write; the pipeline
// commits every plan evaluated during a write in the next one.
func BenchmarkPlanApplyCommitLatency(b *testing.B) {
	for _, mode := range []string{"serial", "pipelined"} {
		b.Run(mode, func(b *testing.B) {
			h := newHarness(b)
			r := newLatencyRaft(h.raft, commitLatency)
			defer r.close()
			h.reconfigure(func(c *Config) { c.Raft, c.Serial = r, mode == "serial" })
			job := mockJob("bench", 50)
			h.upsertJob(job)
			for n := range latencyNodes {
				h.upsertNode(mockNode(fmt.Sprintf("node-%04d", n)))
			}
			stop := runApplier(h)
			defer stop()
			b.ResetTimer()
			submitConcurrently(b, h, job, 16)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "plans/s")
		})
	}
}

// submitConcurrently has workers submit b.N small plans between them and
// wait for each answer.
func submitConcurrently(b *testing.B, h *harness, job *structs.Job, workers int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)); i <= b.N; i = int(next.Add(1)) {
				plan := h.plan(fmt.Sprintf("eval-%d", i), job)
				for k := range 10 {
					node := fmt.Sprintf("node-%04d", (i*10+k)%latencyNodes)
					addTo(&plan.NodeAllocation, mockAlloc(fmt.Sprintf("p%d-%d", i, k), job, node, 1, 1, 1))
				}
				f, err := h.queue.Enqueue(plan)
				if err != nil {
					b.Error(err)
					return
				}
				if res, err := f.Wait(); err != nil || len(res.RejectedNodes) > 0 {
					b.Errorf("plan %d: %+v %v", i, res, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
