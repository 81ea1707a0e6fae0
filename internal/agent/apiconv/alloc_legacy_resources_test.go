package apiconv

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestLegacyAllocResources_SumTasksPlusSharedDisk(t *testing.T) {
	a := &structs.Allocation{AllocatedResources: &structs.AllocatedResources{
		Tasks: map[string]*structs.AllocatedTaskResources{
			"web":     {CpuShares: 500, MemoryMB: 256, MemoryMaxMB: 512},
			"sidecar": {CpuShares: 100, MemoryMB: 64, ReservedCores: []uint16{2}},
		},
		Shared: structs.AllocatedSharedResources{DiskMB: 300},
	}}
	out := AllocFromStructs(a)
	r := out.Resources
	if r == nil || *r.CPU != 600 || *r.MemoryMB != 320 || *r.DiskMB != 300 || *r.Cores != 1 || r.MemoryMaxMB == nil || *r.MemoryMaxMB != 576 {
		t.Fatalf("Resources = %+v", r)
	}
	web := out.TaskResources["web"]
	if web == nil || *web.CPU != 500 || *web.MemoryMB != 256 || *web.MemoryMaxMB != 512 {
		t.Fatalf("TaskResources[web] = %+v", web)
	}
	if side := out.TaskResources["sidecar"]; side == nil || *side.Cores != 1 || side.MemoryMaxMB != nil {
		t.Fatalf("TaskResources[sidecar] = %+v", side)
	}
}

func TestLegacyAllocResources_NilWithoutAllocatedResources(t *testing.T) {
	out := AllocFromStructs(&structs.Allocation{ID: "a"})
	if out.Resources != nil || out.TaskResources != nil {
		t.Fatalf("legacy resources without allocated resources: %+v %+v", out.Resources, out.TaskResources)
	}
}
