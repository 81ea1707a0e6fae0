package taskrunner

import (
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestDevicesRefused(t *testing.T) {
	a := &structs.Allocation{AllocatedResources: &structs.AllocatedResources{Tasks: map[string]*structs.AllocatedTaskResources{
		"gpu":   {Devices: []*structs.AllocatedDeviceResource{{Vendor: "nvidia", Type: "gpu", Name: "t4", DeviceIDs: []string{"GPU-1", "GPU-2"}}}},
		"plain": {CpuShares: 100},
	}}}
	err := devicesRefused(a, "gpu")
	if err == nil || !strings.Contains(err.Error(), "nvidia/gpu/t4 GPU-1,GPU-2") {
		t.Fatalf("gpu task: %v", err)
	}
	if err := devicesRefused(a, "plain"); err != nil {
		t.Fatalf("plain task: %v", err)
	}
	if err := devicesRefused(&structs.Allocation{}, "x"); err != nil {
		t.Fatalf("no resources: %v", err)
	}
}
