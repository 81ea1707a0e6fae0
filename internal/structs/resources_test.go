package structs

import "testing"

// A sealed value answers Comparable from its cache: the same answer as
// before, a result the caller may change, and a copy that is not sealed
// (it may be changed before it is stored).
func TestAllocatedResources_SealedComparable(t *testing.T) {
	r := &AllocatedResources{
		Tasks: map[string]*AllocatedTaskResources{
			"a": {CpuShares: 100, MemoryMB: 64, ReservedCores: []uint16{1}},
			"b": {CpuShares: 50, MemoryMB: 32},
		},
		Shared: AllocatedSharedResources{DiskMB: 300},
	}
	want := ComparableResources{CpuShares: 150, MemoryMB: 96, Cores: 1, DiskMB: 300}
	r.Seal()
	got := r.Comparable()
	if *got != want {
		t.Fatalf("sealed Comparable %+v, want %+v", *got, want)
	}
	got.CpuShares = 0
	if again := r.Comparable(); *again != want {
		t.Fatalf("changing a result changed the next one: %+v", *again)
	}
	c := r.Copy()
	if c.flat != nil {
		t.Fatal("Copy kept the seal")
	}
	c.Tasks["b"].CpuShares = 500
	if got := c.Comparable(); got.CpuShares != 600 {
		t.Fatalf("a changed copy answers %+v, want its own sum", got)
	}
}
