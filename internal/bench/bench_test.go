package bench

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"
)

// quick runs each benchmark at a tenth of the issue's shape (as `drover
// bench -quick`), e.g. to profile scenario f at 100,000 allocs:
// go test -run '^$' -bench MillionAllocs/nodes=10000 -benchtime 1x -cpuprofile cpu.out ./internal/bench -args -quick
var quick = flag.Bool("quick", false, "a tenth of the work per scenario")

// heapProfile names a file for a heap profile taken at the point of
// measurement (BenchmarkDevServerEvalHeap), while the cluster still runs.
var heapProfile = flag.String("heapprofile", "", "write a heap profile at the point of measurement")

// benchNodes are the cluster sizes of the table.
var benchNodes = []int{1000, 5000, 10000}

// benchScenario runs one scenario per cluster size. Each iteration builds
// a fresh cluster, so ns/op includes setup; the figures to read are the
// reported metrics. Run one iteration: -benchtime=1x.
func benchScenario(b *testing.B, scenario string) {
	for _, n := range benchNodes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			spec, err := DefaultSpec(scenario, n, *quick)
			if err != nil {
				b.Fatal(err)
			}
			for range b.N {
				res, err := Run(spec)
				if err != nil {
					b.Fatal(err)
				}
				report(b, res)
			}
		})
	}
}

func report(b *testing.B, r *Result) {
	b.ReportMetric(r.Setup.Seconds(), "setup-s")
	metric := func(v float64, unit string) {
		if v != 0 {
			b.ReportMetric(v, unit)
		}
	}
	metric(r.Elapsed.Seconds(), "elapsed-s")
	metric(r.PerSecond, "per-s")
	metric(float64(r.EvalP50.Microseconds())/1000, "p50-ms")
	metric(float64(r.EvalP99.Microseconds())/1000, "p99-ms")
	metric(float64(r.Phases.WaitP99.Microseconds())/1000, "wait-p99-ms")
	metric(float64(r.Phases.SchedulingP99.Microseconds())/1000, "sched-p99-ms")
	metric(float64(r.Phases.ApplyingP99.Microseconds())/1000, "apply-p99-ms")
	metric(float64(r.Processed), "processed")
	metric(float64(r.Canceled), "canceled")
	metric(r.PerNode, "B/node")
	metric(r.PerAlloc, "B/alloc")
	metric(r.PerEval, "B/eval")
	metric(float64(r.HeapBytes)/(1<<20), "heap-MiB")
	metric(float64(r.RSSBytes)/(1<<20), "rss-MiB")
	metric(float64(r.SnapshotBytes)/(1<<20), "snapshot-MiB")
	metric(r.SnapshotSave.Seconds(), "snapshot-save-s")
	metric(r.SnapshotRestore.Seconds(), "snapshot-restore-s")
	metric(100*r.CPUCores, "cpu-%")
}

// (a) 1000 service jobs of count 10 from 8 submitters: per-s = placements/s.
func BenchmarkE2E_ManyJobs(b *testing.B) { benchScenario(b, ManyJobs) }

// (b) 10 jobs of count 1000.
func BenchmarkE2E_BigJobs(b *testing.B) { benchScenario(b, BigJobs) }

// (c) one job of count 50000.
func BenchmarkE2E_OneHugeJob(b *testing.B) { benchScenario(b, OneHugeJob) }

// (d) state store heap per node and per alloc.
func BenchmarkE2E_StateMemory(b *testing.B) { benchScenario(b, StateMemory) }

// (e) 100000 pending evals for 1000 jobs: per-s = evals drained per second.
func BenchmarkE2E_EvalBacklog(b *testing.B) { benchScenario(b, EvalBacklog) }

// (f) 100 jobs of count 10000: heap, RSS, snapshot size and times.
func BenchmarkE2E_MillionAllocs(b *testing.B) { benchScenario(b, MillionAllocs) }

// (g) heartbeats of every node at the server's TTL: cpu-% of one core.
func BenchmarkE2E_Heartbeats(b *testing.B) { benchScenario(b, Heartbeats) }

// TestScenariosSmoke runs every scenario at a tiny scale so the measuring
// code stays correct without making `go test ./...` slow.
func TestScenariosSmoke(t *testing.T) {
	for _, sc := range Scenarios {
		t.Run(sc, func(t *testing.T) {
			spec, err := DefaultSpec(sc, 50, true)
			if err != nil {
				t.Fatal(err)
			}
			spec.shrink(10) // quick, then ten times smaller again
			profiled := 0
			if sc == MillionAllocs {
				spec.shrink(100) // 10 jobs of 1,000 do not fit on 50 nodes
				spec.HeapProfile = func() error { profiled++; return nil }
			}
			if sc == Heartbeats {
				// 50 nodes at a 10 s TTL beat about 5 times a second:
				// 2 s sees some for sure, 0.3 s might not.
				spec.Window = 2 * time.Second
			}
			res, err := Run(spec)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res)
			if spec.HeapProfile != nil && profiled != 1 {
				t.Errorf("heap profile hook called %d times, want once", profiled)
			}
		})
	}
}

func checkResult(t *testing.T, r *Result) {
	t.Helper()
	switch r.Scenario {
	case ManyJobs, BigJobs, OneHugeJob:
		if r.Placements != r.Jobs*r.Count || r.PerSecond <= 0 || r.EvalP99 < r.EvalP50 ||
			r.CPUCores <= 0 || r.GCShare < 0 || r.GCShare > 1 {
			t.Errorf("result %+v", r)
		}
	case StateMemory:
		if r.PerNode <= 0 || r.PerAlloc <= 0 {
			t.Errorf("result %+v", r)
		}
	case EvalBacklog:
		if r.Processed+r.Canceled != r.Evals || r.Processed == 0 {
			t.Errorf("result %+v", r)
		}
	case MillionAllocs:
		if r.Placements != r.Jobs*r.Count || r.HeapBytes <= 0 || r.SnapshotBytes <= 0 || r.SnapshotRestore <= 0 {
			t.Errorf("result %+v", r)
		}
		// The restore runs with the placing server shut down and dropped.
		if r.RestoreBaseHeapBytes <= 0 || r.RestoreBaseHeapBytes >= r.HeapBytes {
			t.Errorf("restore started from a %d B heap, the server held %d B", r.RestoreBaseHeapBytes, r.HeapBytes)
		}
	case Heartbeats:
		if r.Heartbeats <= 0 || r.CPUCores <= 0 || r.Elapsed < r.Window {
			t.Errorf("result %+v", r)
		}
	case Reads:
		if r.Placements != r.Jobs*r.Count || r.PerSecond <= 0 || len(r.Reads) != len(ReadEndpoints) {
			t.Errorf("result %+v", r)
		}
		for _, s := range r.Reads {
			if s.Count == 0 || s.Bytes == 0 || s.P99 < s.P50 {
				t.Errorf("endpoint %+v", s)
			}
		}
	}
}

// TestReadsGzipAndPaged: scenario r's gzip'd and paged load asks what it
// says: gzip'd replies are smaller on the wire than plain ones, and paged
// alloc and node listings are walked to their last page and started over.
func TestReadsGzipAndPaged(t *testing.T) {
	spec, err := DefaultSpec(Reads, 50, true)
	if err != nil {
		t.Fatal(err)
	}
	spec.shrink(10)
	plain, err := Run(spec)
	if err != nil {
		t.Fatal(err)
	}
	// 500 allocs in 3 pages: a client reaches the last one on its third
	// alloc read (under -race a client made 8 in the window); 50 nodes in
	// one.
	spec.ReadGzip, spec.ReadPage, spec.Window = true, 200, time.Second
	shaped, err := Run(spec)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, shaped)
	perReply := func(r *Result, kind string) (float64, ReadStat) {
		for _, s := range r.Reads {
			if s.Endpoint == kind {
				return float64(s.Bytes) / float64(s.Count), s
			}
		}
		t.Fatalf("no %s reads in %+v", kind, r.Reads)
		return 0, ReadStat{}
	}
	for _, kind := range ReadEndpoints {
		p, ps := perReply(plain, kind)
		g, gs := perReply(shaped, kind)
		if g >= p {
			t.Errorf("%s: %.0f B per gzip'd (or paged) reply, %.0f B plain", kind, g, p)
		}
		var ok bool
		switch kind {
		case "allocations": // walked: some replies the last page, not all
			ok = gs.LastPages > 0 && gs.LastPages < gs.Count
		case "nodes": // one page, the last
			ok = gs.LastPages == gs.Count
		default:
			ok = gs.LastPages == 0
		}
		if !ok || ps.LastPages != 0 {
			t.Errorf("%s: %d of %d replies were a last page (plain: %d)", kind, gs.LastPages, gs.Count, ps.LastPages)
		}
	}
}

func TestDefaultSpec(t *testing.T) {
	for sc, want := range map[string]int{ManyJobs: 10_000, BigJobs: 10_000, OneHugeJob: 50_000} {
		s, err := DefaultSpec(sc, 1000, false)
		if err != nil || s.Jobs*s.Count != want || s.Submitters != 8 {
			t.Errorf("%s: %+v, %v", sc, s, err)
		}
		q, _ := DefaultSpec(sc, 1000, true)
		if q.Jobs*q.Count != want/10 {
			t.Errorf("%s quick: %+v", sc, q)
		}
		if s.jobMaxCount() < s.Count { // the servers would refuse the job
			t.Errorf("%s: servers allow groups of %d, the scenario asks for %d", sc, s.jobMaxCount(), s.Count)
		}
	}
	if _, err := DefaultSpec("z", 1, false); err == nil {
		t.Error("unknown scenario accepted")
	}
}

// BenchmarkDevServerEvalHeap measures the live heap a dev server (raft
// log in memory) holds per stored eval: 100 jobs placed on 100 nodes, then
// 60,000 re-evaluations of them (about 80 MiB of raft entries, past the
// dev log's 32 MiB floor). B/eval is the whole process's growth;
// log-entries and log-MiB are raft's in-memory log afterwards.
func BenchmarkDevServerEvalHeap(b *testing.B) {
	for range b.N {
		c, err := StartCluster(100)
		if err != nil {
			b.Fatal(err)
		}
		r, err := MeasureEvalHeap(c, 100, 60_000)
		if err == nil && *heapProfile != "" {
			err = writeHeapProfile(*heapProfile)
		}
		c.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.PerEval, "B/eval")
		b.ReportMetric(float64(r.Raft.LogEntries), "log-entries")
		b.ReportMetric(float64(r.Raft.SnapshotBytes)/float64(r.StoredEvals), "snapshot-B/eval")
		b.ReportMetric(r.LogPerEval, "log-B/eval")
		b.ReportMetric(float64(r.Raft.LogBytes)/(1<<20), "log-MiB")
		b.ReportMetric(float64(r.StoredEvals), "stored-evals")
		b.ReportMetric(r.HeapAfterMiB, "heap-MiB")
	}
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	runtime.GC()
	return pprof.WriteHeapProfile(f)
}
