package state

import (
	"fmt"
	"testing"

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
