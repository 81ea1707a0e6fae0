package scheduler

import (
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// gpuNode carries the device groups given.
func gpuNode(devs ...*structs.NodeDeviceResource) *structs.Node {
	n := mockNode()
	n.NodeResources.Devices = devs
	return n
}

func gpus(vendor, typ, name string, attrs map[string]string, ids ...string) *structs.NodeDeviceResource {
	d := &structs.NodeDeviceResource{Vendor: vendor, Type: typ, Name: name, Attributes: attrs}
	for _, id := range ids {
		healthy := id[0] != '!'
		if !healthy {
			id = id[1:]
		}
		d.Instances = append(d.Instances, &structs.NodeDevice{ID: id, Healthy: healthy})
	}
	return d
}

// gpuJob asks for count instances of name in its one task, per alloc.
func gpuJob(id string, allocs int, name string, count uint64, cons []*structs.Constraint, affs []*structs.Affinity) *structs.Job {
	j := mockJob(id, allocs)
	j.TaskGroups[0].Tasks[0].Resources.Devices = []*structs.RequestedDevice{{Name: name, Count: count, Constraints: cons, Affinities: affs}}
	return j
}

func TestDeviceNameMatches(t *testing.T) {
	d := &structs.NodeDeviceResource{Vendor: "nvidia", Type: "gpu", Name: "1080ti"}
	for name, want := range map[string]bool{
		"gpu": true, "nvidia/gpu": true, "nvidia/gpu/1080ti": true,
		"fpga": false, "amd/gpu": false, "nvidia/gpu/t4": false, "a/b/c/d": false,
	} {
		if got := deviceNameMatches(d, name); got != want {
			t.Errorf("%q: %v, want %v", name, got, want)
		}
	}
}

// TestDevices_Scheduler places device requests through the service
// scheduler: only nodes whose device group matches the name, the
// constraints and has enough healthy instances are feasible; instances
// held by other allocs are not free; no instance is granted twice; the
// affinity picks the group; what cannot be placed is explained.
func TestDevices_Scheduler(t *testing.T) {
	memAttr := map[string]string{"memory": "11264"}
	cases := []struct {
		name    string
		nodes   []*structs.Node
		job     *structs.Job
		placed  int
		ids     []string // the device IDs granted, in alloc order (sorted)
		filter  map[string]int
		exhaust map[string]int
	}{
		{"type name, one per alloc, two allocs share no instance",
			[]*structs.Node{gpuNode(gpus("nvidia", "gpu", "1080ti", memAttr, "g0", "g1"))},
			gpuJob("a", 3, "gpu", 1, nil, nil), 2, []string{"g0", "g1"},
			nil, map[string]int{"device gpu: asked 1, free 0": 1}},
		{"unhealthy instances do not count",
			[]*structs.Node{gpuNode(gpus("nvidia", "gpu", "1080ti", memAttr, "g0", "!g1"))},
			gpuJob("a", 1, "nvidia/gpu", 2, nil, nil), 0, nil,
			map[string]int{"missing device nvidia/gpu": 1}, nil},
		{"node without devices is filtered",
			[]*structs.Node{mockNode()},
			gpuJob("a", 1, "nvidia/gpu", 1, nil, nil), 0, nil,
			map[string]int{"missing device nvidia/gpu": 1}, nil},
		{"full name picks the matching group",
			[]*structs.Node{gpuNode(gpus("nvidia", "gpu", "1080ti", memAttr, "a0"), gpus("nvidia", "gpu", "t4", nil, "b0"))},
			gpuJob("a", 1, "nvidia/gpu/t4", 1, nil, nil), 1, []string{"b0"}, nil, nil},
		{"constraint on device attribute",
			[]*structs.Node{gpuNode(gpus("nvidia", "gpu", "small", map[string]string{"memory": "4096"}, "s0"), gpus("nvidia", "gpu", "big", memAttr, "b0"))},
			gpuJob("a", 1, "gpu", 1, []*structs.Constraint{{LTarget: "${device.attr.memory}", Operand: ">=", RTarget: "8000"}}, nil), 1, []string{"b0"}, nil, nil},
		{"constraint nobody meets",
			[]*structs.Node{gpuNode(gpus("nvidia", "gpu", "small", map[string]string{"memory": "4096"}, "s0"))},
			gpuJob("a", 1, "gpu", 1, []*structs.Constraint{{LTarget: "${device.model}", Operand: "=", RTarget: "a100"}}, nil), 0, nil,
			map[string]int{"missing device gpu": 1}, nil},
		{"affinity picks the group",
			[]*structs.Node{gpuNode(gpus("nvidia", "gpu", "a", nil, "a0", "a1"), gpus("nvidia", "gpu", "b", nil, "b0"))},
			gpuJob("a", 1, "gpu", 1, nil, []*structs.Affinity{{LTarget: "${device.model}", Operand: "=", RTarget: "b", Weight: 50}}), 1, []string{"b0"}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			for _, n := range tc.nodes {
				h.upsertNode(n)
			}
			job, _ := h.register(tc.job)
			live := h.liveAllocs(job)
			if len(live) != tc.placed {
				t.Fatalf("placed %d, want %d", len(live), tc.placed)
			}
			var ids []string
			for _, a := range live {
				for _, d := range a.AllocatedResources.Tasks["web"].Devices {
					ids = append(ids, d.DeviceIDs...)
				}
			}
			slices.Sort(ids)
			if !slices.Equal(ids, tc.ids) {
				t.Fatalf("granted %v, want %v", ids, tc.ids)
			}
			if tc.placed == tc.job.TaskGroups[0].Count {
				return
			}
			m := h.lastEval().FailedTGAllocs["web"]
			if m == nil {
				t.Fatal("no failed metric")
			}
			for k, v := range tc.filter {
				if m.ConstraintFiltered[k] != v {
					t.Fatalf("filtered %v, want %s=%d", m.ConstraintFiltered, k, v)
				}
			}
			for k, v := range tc.exhaust {
				if m.DimensionExhausted[k] != v {
					t.Fatalf("exhausted %v, want %s=%d", m.DimensionExhausted, k, v)
				}
			}
		})
	}
}

// TestDevices_HeldByAnotherJobAndExplained: instances another job holds
// are not free, and DiagnoseGroup names both kinds of failure.
func TestDevices_HeldByAnotherJobAndExplained(t *testing.T) {
	h := newHarness(t)
	full := h.upsertNode(gpuNode(gpus("nvidia", "gpu", "t4", nil, "g0", "g1")))
	bare := h.upsertNode(mockNode())
	h.register(gpuJob("first", 1, "nvidia/gpu", 1, nil, nil))
	second, _ := h.register(gpuJob("second", 1, "nvidia/gpu", 2, nil, nil))
	if live := h.liveAllocs(second); len(live) != 0 {
		t.Fatalf("second job placed %d allocs on a node with one free instance", len(live))
	}
	d, err := DiagnoseGroup(h.store.Snapshot(), second, "web")
	h.must(err)
	for _, nd := range d.Nodes {
		var got []string
		for _, f := range nd.Failures {
			got = append(got, f.Step+": "+f.Detail)
		}
		want := map[string][]string{
			full.ID: {"device: device nvidia/gpu: asked 2, free 1"},
			bare.ID: {"device: missing device nvidia/gpu"},
		}[nd.Node.ID]
		if !slices.Equal(got, want) {
			t.Fatalf("node %s: %v, want %v", nd.Node.Name, got, want)
		}
	}
}

// TestDevices_ConstraintUnits: device attributes with units compare by
// value, as Nomad's do ("16 GiB" >= "2 GiB", though not as strings).
func TestDevices_ConstraintUnits(t *testing.T) {
	ctx := &evalContext{}
	n := mockNode()
	d := gpus("nvidia", "gpu", "t4", map[string]string{"memory": "16 GiB", "clock": "1500 MHz"}, "g0")
	for _, tc := range []struct {
		con  structs.Constraint
		want bool
	}{
		{structs.Constraint{LTarget: "${device.attr.memory}", Operand: ">=", RTarget: "2 GiB"}, true},
		{structs.Constraint{LTarget: "${device.attr.memory}", Operand: ">=", RTarget: "16384 MiB"}, true},
		{structs.Constraint{LTarget: "${device.attr.memory}", Operand: ">", RTarget: "20 GB"}, false},
		{structs.Constraint{LTarget: "${device.attr.clock}", Operand: "<", RTarget: "2 GHz"}, true},
		{structs.Constraint{LTarget: "${device.vendor}", Operand: "=", RTarget: "nvidia"}, true},
		{structs.Constraint{LTarget: "${device.attr.missing}", Operand: "is_set"}, false},
	} {
		req := &structs.RequestedDevice{Name: "gpu", Constraints: []*structs.Constraint{&tc.con}}
		if got := ctx.deviceGroupFits(d, req, n); got != tc.want {
			t.Errorf("%s %s %s: %v, want %v", tc.con.LTarget, tc.con.Operand, tc.con.RTarget, got, tc.want)
		}
	}
}
