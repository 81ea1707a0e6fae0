package apiconv

import (
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
)

// Host volume claims and mounts. CSI fields (access and attachment mode,
// mount options) have no place here: Drover schedules host volumes only.

func volumesToStructs(in map[string]*api.VolumeRequest) map[string]*structs.VolumeRequest {
	return convertMap(in, func(v *api.VolumeRequest) *structs.VolumeRequest {
		return &structs.VolumeRequest{Name: v.Name, Type: v.Type, Source: v.Source, ReadOnly: v.ReadOnly, PerAlloc: v.PerAlloc}
	})
}

func volumesFromStructs(in map[string]*structs.VolumeRequest) map[string]*api.VolumeRequest {
	return convertMap(in, func(v *structs.VolumeRequest) *api.VolumeRequest {
		return &api.VolumeRequest{Name: v.Name, Type: v.Type, Source: v.Source, ReadOnly: v.ReadOnly, PerAlloc: v.PerAlloc}
	})
}

func volumeMountsToStructs(in []*api.VolumeMount) []*structs.VolumeMount {
	return convertPtrs(in, func(m *api.VolumeMount) *structs.VolumeMount {
		return &structs.VolumeMount{Volume: deref(m.Volume), Destination: deref(m.Destination), ReadOnly: deref(m.ReadOnly), PropagationMode: deref(m.PropagationMode)}
	})
}

func volumeMountsFromStructs(in []*structs.VolumeMount) []*api.VolumeMount {
	return convertPtrs(in, func(m *structs.VolumeMount) *api.VolumeMount {
		return &api.VolumeMount{Volume: new(m.Volume), Destination: new(m.Destination), ReadOnly: new(m.ReadOnly), PropagationMode: new(m.PropagationMode)}
	})
}

func hostVolumesFromStructs(in map[string]*structs.ClientHostVolumeConfig) map[string]*api.HostVolumeInfo {
	return convertMap(in, func(v *structs.ClientHostVolumeConfig) *api.HostVolumeInfo {
		return &api.HostVolumeInfo{Path: v.Path, ReadOnly: v.ReadOnly}
	})
}

func hostVolumesToStructs(in map[string]*api.HostVolumeInfo) map[string]*structs.ClientHostVolumeConfig {
	out := convertMap(in, func(v *api.HostVolumeInfo) *structs.ClientHostVolumeConfig {
		return &structs.ClientHostVolumeConfig{Path: v.Path, ReadOnly: v.ReadOnly}
	})
	for name, v := range out {
		v.Name = name
	}
	return out
}

func hostNetworksFromStructs(in map[string]*structs.ClientHostNetworkConfig) map[string]*api.HostNetworkInfo {
	return convertMap(in, func(h *structs.ClientHostNetworkConfig) *api.HostNetworkInfo {
		return &api.HostNetworkInfo{Name: h.Name, CIDR: h.CIDR, Interface: h.Interface, ReservedPorts: h.ReservedPorts}
	})
}

func hostNetworksToStructs(in map[string]*api.HostNetworkInfo) map[string]*structs.ClientHostNetworkConfig {
	return convertMap(in, func(h *api.HostNetworkInfo) *structs.ClientHostNetworkConfig {
		return &structs.ClientHostNetworkConfig{Name: h.Name, CIDR: h.CIDR, Interface: h.Interface, ReservedPorts: h.ReservedPorts}
	})
}
