package apiconv

import (
	"maps"
	"slices"

	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// Task resource requests and the network blocks shared by requests
// (tasks, groups), offers (nodes) and grants (allocations).

func resourcesToStructs(r *api.Resources) *structs.Resources {
	if r == nil {
		return nil
	}
	out := byName[structs.Resources](r)
	out.Networks = networksToStructs(r.Networks)
	out.Devices = devicesToStructs(r.Devices)
	return out
}

func resourcesFromStructs(r *structs.Resources) *api.Resources {
	if r == nil {
		return nil
	}
	out := byName[api.Resources](r)
	out.Networks = networksFromStructs(r.Networks)
	out.Devices = devicesFromStructs(r.Devices)
	return out
}

// devicesToStructs keeps only name and count: structs has no per-device
// constraints or affinities yet.
func devicesToStructs(in []*api.RequestedDevice) []*structs.RequestedDevice {
	return convertPtrs(in, func(d *api.RequestedDevice) *structs.RequestedDevice {
		return &structs.RequestedDevice{Name: d.Name, Count: deref(d.Count),
			Constraints: constraintsToStructs(d.Constraints), Affinities: affinitiesToStructs(d.Affinities)}
	})
}

func devicesFromStructs(in []*structs.RequestedDevice) []*api.RequestedDevice {
	return convertPtrs(in, func(d *structs.RequestedDevice) *api.RequestedDevice {
		return &api.RequestedDevice{Name: d.Name, Count: new(d.Count),
			Constraints: constraintsFromStructs(d.Constraints), Affinities: affinitiesFromStructs(d.Affinities)}
	})
}

func networksToStructs(in []*api.NetworkResource) []*structs.NetworkResource {
	return convertPtrs(in, func(n *api.NetworkResource) *structs.NetworkResource {
		out := byName[structs.NetworkResource](n)
		out.ReservedPorts = convertSlice(n.ReservedPorts, portToStructs)
		out.DynamicPorts = convertSlice(n.DynamicPorts, portToStructs)
		if n.DNS != nil {
			out.DNS = &structs.DNSConfig{Servers: slices.Clone(n.DNS.Servers), Searches: slices.Clone(n.DNS.Searches), Options: slices.Clone(n.DNS.Options)}
		}
		if n.CNI != nil {
			out.CNI = &structs.CNIConfig{Args: maps.Clone(n.CNI.Args)}
		}
		return out
	})
}

func networksFromStructs(in []*structs.NetworkResource) []*api.NetworkResource {
	return convertPtrs(in, func(n *structs.NetworkResource) *api.NetworkResource {
		out := byName[api.NetworkResource](n)
		out.ReservedPorts = convertSlice(n.ReservedPorts, portFromStructs)
		out.DynamicPorts = convertSlice(n.DynamicPorts, portFromStructs)
		out.DNS = dnsFromStructs(n.DNS)
		if n.CNI != nil {
			out.CNI = &api.CNIConfig{Args: maps.Clone(n.CNI.Args)}
		}
		return out
	})
}

func portToStructs(p api.Port) structs.Port {
	return structs.Port{Label: p.Label, Value: p.Value, To: p.To, HostNetwork: p.HostNetwork}
}

func portFromStructs(p structs.Port) api.Port {
	return api.Port{Label: p.Label, Value: p.Value, To: p.To, HostNetwork: p.HostNetwork}
}

func dnsFromStructs(d *structs.DNSConfig) *api.DNSConfig {
	if d == nil {
		return nil
	}
	return &api.DNSConfig{Servers: slices.Clone(d.Servers), Searches: slices.Clone(d.Searches), Options: slices.Clone(d.Options)}
}
