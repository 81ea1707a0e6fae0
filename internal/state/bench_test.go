package state

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

func benchAllocs(job *structs.Job, n, nodes int, prefix string) []*structs.Allocation {
	allocs := make([]*structs.Allocation, n)
	for i := range allocs {
		allocs[i] = mockAlloc(fmt.Sprintf("%s-%06d", prefix, i), job, fmt.Sprintf("node-%03d", i%nodes))
	}
	return allocs
}

// BenchmarkUpsertAllocs measures one plan-sized write of 1000 new allocs.
func BenchmarkUpsertAllocs(b *testing.B) {
	s := newStore(b)
	must(b, s.UpsertJob(1, 0, mockJob("web")))
	job, _ := s.JobByID(nil, "default", "web")
	batches := make([][]*structs.Allocation, b.N)
	for i := range batches {
		batches[i] = benchAllocs(job, 1000, 100, fmt.Sprintf("b%d", i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		must(b, s.UpsertAllocs(uint64(i+2), batches[i]))
	}
}

// BenchmarkAllocsByNode reads the 100 allocs of one node out of 10000.
func BenchmarkAllocsByNode(b *testing.B) {
	s := newStore(b)
	must(b, s.UpsertJob(1, 0, mockJob("web")))
	job, _ := s.JobByID(nil, "default", "web")
	must(b, s.UpsertAllocs(2, benchAllocs(job, 10000, 100, "a")))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		allocs, err := s.AllocsByNode(nil, fmt.Sprintf("node-%03d", i%100))
		if err != nil || len(allocs) != 100 {
			b.Fatalf("%d allocs, %v", len(allocs), err)
		}
	}
}

// BenchmarkDeleteEvalsEntry measures one eval-delete raft entry (evals
// with one terminal alloc each; the server's entries hold
// evalDeleteBatch IDs) in a store holding 100 jobs with 1,000 terminal
// evals and allocs each. Raft is blocked for this long per entry; it must
// stay far below 100 ms. Past about 8,000 changed tree nodes per index,
// go-immutable-radix stops tracking the watch channels to close and walks
// the whole tree at commit instead, so the cost jumps with entry size.
func BenchmarkDeleteEvalsEntry(b *testing.B) {
	for _, perEntry := range []int{512, 1024, 2048} {
		b.Run(fmt.Sprintf("ids=%d", 2*perEntry), func(b *testing.B) { benchDeleteEvalsEntry(b, perEntry) })
	}
}

func benchDeleteEvalsEntry(b *testing.B, perEntry int) {
	const jobs, perJob = 100, 1000
	s := newStore(b)
	index := uint64(1)
	var evalIDs, allocIDs []string
	for j := range jobs {
		job := mockJob(fmt.Sprintf("job-%03d", j))
		must(b, s.UpsertJob(index, 0, job))
		index++
		stored, _ := s.JobByID(nil, "default", job.ID)
		evals := make([]*structs.Evaluation, perJob)
		allocs := make([]*structs.Allocation, perJob)
		for i := range evals {
			e := mockEval(fmt.Sprintf("e-%03d-%05d", j, i), job.ID)
			e.Status = structs.EvalStatusComplete
			evals[i] = e
			a := mockAlloc(fmt.Sprintf("a-%03d-%05d", j, i), stored, fmt.Sprintf("node-%03d", i%100))
			a.EvalID, a.DesiredStatus, a.ClientStatus = e.ID, structs.AllocDesiredStatusStop, structs.AllocClientStatusComplete
			allocs[i] = a
			evalIDs, allocIDs = append(evalIDs, e.ID), append(allocIDs, a.ID)
		}
		must(b, s.UpsertEvals(index, evals))
		must(b, s.UpsertAllocs(index+1, allocs))
		index += 2
	}
	// Interleave jobs, as a GC pass over the eval table (ID order) does.
	order := rand.New(rand.NewPCG(1, 2)).Perm(len(evalIDs))
	b.ResetTimer()
	for i := range b.N {
		var es, as []string
		for k := range perEntry {
			n := order[(i*perEntry+k)%len(order)]
			es, as = append(es, evalIDs[n]), append(as, allocIDs[n])
		}
		must(b, s.DeleteEvals(index, es, as))
		index++
	}
}

// BenchmarkSnapshotRestore restores snapshots of 100,000 and 300,000
// allocs (jobs of 1,000 on 1,000 nodes); it reports the snapshot's bytes
// per alloc. Restore time must grow linearly with the allocs.
// Allocs have random UUIDs and land on random nodes, as placed ones do:
// the snapshot holds them in ID order, so the restore's node and job
// index inserts land all over those trees.
func BenchmarkSnapshotRestore(b *testing.B) {
	for _, jobs := range []int{10, 30} {
		b.Run(fmt.Sprintf("allocs=%d", jobs*10_000), func(b *testing.B) { benchSnapshotRestore(b, jobs) })
	}
}

// BenchmarkSnapshotRestoreMillion restores the state of `drover bench
// -scenario f`: 100 jobs of 10,000 allocs on 10,000 nodes. Setup takes
// minutes.
func BenchmarkSnapshotRestoreMillion(b *testing.B) { benchSnapshotRestore(b, 100) }

// benchSnapshotRestore restores jobs of 10,000 allocs on 10,000 nodes. It
// reports the snapshot's bytes per alloc and its save (Persist) time.
func benchSnapshotRestore(b *testing.B, jobs int) {
	const perJob, nodes, perPlan = 10_000, 10_000, 1000
	rng := rand.New(rand.NewPCG(7, 7))
	uuid := func() string {
		return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.Uint32()&0xffff, rng.Uint32()&0xfff, rng.Uint32()&0xfff, rng.Uint64()&0xffffffffffff)
	}
	nodeIDs := make([]string, nodes)
	for i := range nodeIDs {
		nodeIDs[i] = uuid()
	}
	s := newStore(b)
	index := uint64(1)
	for j := range jobs {
		job := mockJob(fmt.Sprintf("job-%03d", j))
		must(b, s.UpsertJob(index, 0, job))
		stored, _ := s.JobByID(nil, "default", job.ID)
		for range perJob / perPlan {
			allocs := make([]*structs.Allocation, perPlan)
			for i := range allocs {
				allocs[i] = mockAlloc(uuid(), stored, nodeIDs[rng.IntN(nodes)])
			}
			index++
			must(b, s.UpsertAllocs(index, allocs))
		}
		index++
	}
	var buf bytes.Buffer
	start := time.Now()
	must(b, s.Snapshot().Persist(&buf))
	save := time.Since(start)
	runtime.GC()
	b.ResetTimer()
	cpu := processCPU()
	for range b.N {
		dst := newStore(b)
		must(b, dst.Restore(bytes.NewReader(buf.Bytes())))
	}
	// The process's CPU (GC workers included) per restore: on a loaded
	// machine it varies far less than the wall time.
	b.ReportMetric((processCPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(save.Seconds(), "save-s")
	b.ReportMetric(float64(buf.Len())/float64(jobs*perJob), "B/alloc")
}

// processCPU is the process's user and system CPU so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
