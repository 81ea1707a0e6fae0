package apiconv

import (
	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// Task resource requests and the network blocks shared by requests
// (tasks, groups), offers (nodes) and grants (allocations).

func resourcesToStructs(r *api.Resources) *structs.Resources {
	if r == nil {
		return nil
	}
	return &structs.Resources{
		CPU:         deref(r.CPU),
		Cores:       deref(r.Cores),
		MemoryMB:    deref(r.MemoryMB),
		MemoryMaxMB: deref(r.MemoryMaxMB),
		DiskMB:      deref(r.DiskMB),
		Networks:    networksToStructs(r.Networks),
		Devices:     devicesToStructs(r.Devices),
	}
}

func resourcesFromStructs(r *structs.Resources) *api.Resources {
	if r == nil {
		return nil
	}
	return &api.Resources{
		CPU:         new(r.CPU),
		Cores:       new(r.Cores),
		MemoryMB:    new(r.MemoryMB),
		MemoryMaxMB: new(r.MemoryMaxMB),
		DiskMB:      new(r.DiskMB),
		Networks:    networksFromStructs(r.Networks),
		Devices:     devicesFromStructs(r.Devices),
	}
}

// devicesToStructs keeps only name and count: structs has no per-device
// constraints or affinities yet.
func devicesToStructs(in []*api.RequestedDevice) []*structs.RequestedDevice {
	return convertPtrs(in, func(d *api.RequestedDevice) *structs.RequestedDevice {
		return &structs.RequestedDevice{Name: d.Name, Count: deref(d.Count)}
	})
}

func devicesFromStructs(in []*structs.RequestedDevice) []*api.RequestedDevice {
	return convertPtrs(in, func(d *structs.RequestedDevice) *api.RequestedDevice {
		return &api.RequestedDevice{Name: d.Name, Count: new(d.Count)}
	})
}

func networksToStructs(in []*api.NetworkResource) []*structs.NetworkResource {
	return convertPtrs(in, func(n *api.NetworkResource) *structs.NetworkResource {
		return &structs.NetworkResource{
			Mode:          n.Mode,
			Device:        n.Device,
			CIDR:          n.CIDR,
			IP:            n.IP,
			MBits:         deref(n.MBits),
			ReservedPorts: convertSlice(n.ReservedPorts, portToStructs),
			DynamicPorts:  convertSlice(n.DynamicPorts, portToStructs),
		}
	})
}

func networksFromStructs(in []*structs.NetworkResource) []*api.NetworkResource {
	return convertPtrs(in, func(n *structs.NetworkResource) *api.NetworkResource {
		return &api.NetworkResource{
			Mode:          n.Mode,
			Device:        n.Device,
			CIDR:          n.CIDR,
			IP:            n.IP,
			MBits:         new(n.MBits),
			ReservedPorts: convertSlice(n.ReservedPorts, portFromStructs),
			DynamicPorts:  convertSlice(n.DynamicPorts, portFromStructs),
		}
	})
}

func portToStructs(p api.Port) structs.Port {
	return structs.Port{Label: p.Label, Value: p.Value, To: p.To, HostNetwork: p.HostNetwork}
}

func portFromStructs(p structs.Port) api.Port {
	return api.Port{Label: p.Label, Value: p.Value, To: p.To, HostNetwork: p.HostNetwork}
}
