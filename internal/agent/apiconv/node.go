package apiconv

import (
	"maps"
	"slices"

	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// Node attributes the list stub surfaces as fields of its own.
const (
	attrAddress = "unique.network.ip-address"
	attrVersion = "nomad.version"
	attrOSName  = "os.name"
	attrOSVer   = "os.version"
)

// NodeFromStructs converts a node for output. SecretID is never copied
// (api.Node has no such field, and it authenticates the client), nor is
// ComputedClass, which api.Node lacks.
func NodeFromStructs(n *structs.Node) *api.Node {
	if n == nil {
		return nil
	}
	return &api.Node{
		ID:                    n.ID,
		Datacenter:            n.Datacenter,
		Name:                  n.Name,
		HTTPAddr:              n.HTTPAddr,
		TLSEnabled:            n.TLSEnabled,
		Attributes:            maps.Clone(n.Attributes),
		NodeResources:         NodeResourcesFromStructs(n.NodeResources),
		ReservedResources:     NodeReservedResourcesFromStructs(n.ReservedResources),
		Links:                 maps.Clone(n.Links),
		Meta:                  maps.Clone(n.Meta),
		NodeClass:             n.NodeClass,
		NodePool:              n.NodePool,
		Drain:                 n.DrainStrategy != nil,
		DrainStrategy:         drainStrategyFromStructs(n.DrainStrategy),
		SchedulingEligibility: n.SchedulingEligibility,
		Status:                n.Status,
		StatusDescription:     n.StatusDescription,
		StatusUpdatedAt:       n.StatusUpdatedAt,
		Events:                convertPtrs(n.Events, nodeEventFromStructs),
		Drivers:               convertMap(n.Drivers, driverFromStructs),
		LastDrain:             drainMetadataFromStructs(n.LastDrain),
		HostVolumes:           hostVolumesFromStructs(n.HostVolumes),
		HostNetworks:          hostNetworksFromStructs(n.HostNetworks),
		CreateIndex:           n.CreateIndex,
		ModifyIndex:           n.ModifyIndex,
	}
}

// NodeToStructs converts a node registered over HTTP. The result has no
// SecretID (api.Node cannot carry one) and no ComputedClass: the server
// computes the class and the caller must supply the secret separately.
func NodeToStructs(n *api.Node) *structs.Node {
	if n == nil {
		return nil
	}
	return &structs.Node{
		ID:                    n.ID,
		Datacenter:            n.Datacenter,
		Name:                  n.Name,
		HTTPAddr:              n.HTTPAddr,
		TLSEnabled:            n.TLSEnabled,
		NodePool:              n.NodePool,
		NodeClass:             n.NodeClass,
		Attributes:            maps.Clone(n.Attributes),
		Meta:                  maps.Clone(n.Meta),
		NodeResources:         nodeResourcesToStructs(n.NodeResources),
		ReservedResources:     nodeReservedToStructs(n.ReservedResources),
		Drivers:               convertMap(n.Drivers, driverToStructs),
		Links:                 maps.Clone(n.Links),
		Status:                n.Status,
		StatusDescription:     n.StatusDescription,
		StatusUpdatedAt:       n.StatusUpdatedAt,
		SchedulingEligibility: n.SchedulingEligibility,
		DrainStrategy:         drainStrategyToStructs(n.DrainStrategy),
		LastDrain:             drainMetadataToStructs(n.LastDrain),
		HostVolumes:           hostVolumesToStructs(n.HostVolumes),
		HostNetworks:          hostNetworksToStructs(n.HostNetworks),
		Events:                convertPtrs(n.Events, nodeEventToStructs),
		CreateIndex:           n.CreateIndex,
		ModifyIndex:           n.ModifyIndex,
	}
}

// NodeStubFields mirrors the node list endpoint's ?resources= and ?os=
// flags, which add the bulky parts of a node to each stub.
type NodeStubFields struct {
	Resources bool
	OS        bool
}

// NodeStubFromStructs converts a node to its list form.
func NodeStubFromStructs(n *structs.Node, fields NodeStubFields) *api.NodeListStub {
	if n == nil {
		return nil
	}
	stub := &api.NodeListStub{
		Address:               n.Attributes[attrAddress],
		ID:                    n.ID,
		Datacenter:            n.Datacenter,
		Name:                  n.Name,
		NodeClass:             n.NodeClass,
		NodePool:              n.NodePool,
		Version:               n.Attributes[attrVersion],
		Drain:                 n.DrainStrategy != nil,
		SchedulingEligibility: n.SchedulingEligibility,
		Status:                n.Status,
		StatusDescription:     n.StatusDescription,
		Drivers:               convertMap(n.Drivers, driverFromStructs),
		LastDrain:             drainMetadataFromStructs(n.LastDrain),
		CreateIndex:           n.CreateIndex,
		ModifyIndex:           n.ModifyIndex,
	}
	if fields.Resources {
		stub.NodeResources = NodeResourcesFromStructs(n.NodeResources)
		stub.ReservedResources = NodeReservedResourcesFromStructs(n.ReservedResources)
	}
	if fields.OS {
		// Nomad returns only these two attributes, not the whole map.
		stub.Attributes = map[string]string{attrOSName: n.Attributes[attrOSName], attrOSVer: n.Attributes[attrOSVer]}
	}
	return stub
}

// NodeResourcesFromStructs converts what a node offers.
func NodeResourcesFromStructs(r *structs.NodeResources) *api.NodeResources {
	if r == nil {
		return nil
	}
	return &api.NodeResources{
		Cpu: api.NodeCpuResources{
			CpuShares:          r.CPU.CpuShares,
			TotalCpuCores:      r.CPU.TotalCpuCores,
			ReservableCpuCores: slices.Clone(r.CPU.ReservableCpuCores),
		},
		Memory:         api.NodeMemoryResources{MemoryMB: r.MemoryMB},
		Disk:           api.NodeDiskResources{DiskMB: r.DiskMB},
		Networks:       networksFromStructs(r.Networks),
		MinDynamicPort: r.MinDynamicPort,
		MaxDynamicPort: r.MaxDynamicPort,
	}
}

func nodeResourcesToStructs(r *api.NodeResources) *structs.NodeResources {
	if r == nil {
		return nil
	}
	return &structs.NodeResources{
		CPU: structs.NodeCPUResources{
			CpuShares:          r.Cpu.CpuShares,
			TotalCpuCores:      r.Cpu.TotalCpuCores,
			ReservableCpuCores: slices.Clone(r.Cpu.ReservableCpuCores),
		},
		MemoryMB:       r.Memory.MemoryMB,
		DiskMB:         r.Disk.DiskMB,
		Networks:       networksToStructs(r.Networks),
		MinDynamicPort: r.MinDynamicPort,
		MaxDynamicPort: r.MaxDynamicPort,
	}
}

// NodeReservedResourcesFromStructs converts what a node holds back. The api
// counts reservations unsigned; structs signed, to subtract them directly.
func NodeReservedResourcesFromStructs(r *structs.NodeReservedResources) *api.NodeReservedResources {
	if r == nil {
		return nil
	}
	return &api.NodeReservedResources{
		Cpu:      api.NodeReservedCpuResources{CpuShares: uint64(max(r.CpuShares, 0))},
		Memory:   api.NodeReservedMemoryResources{MemoryMB: uint64(max(r.MemoryMB, 0))},
		Disk:     api.NodeReservedDiskResources{DiskMB: uint64(max(r.DiskMB, 0))},
		Networks: api.NodeReservedNetworkResources{ReservedHostPorts: r.ReservedPorts},
	}
}

func nodeReservedToStructs(r *api.NodeReservedResources) *structs.NodeReservedResources {
	if r == nil {
		return nil
	}
	return &structs.NodeReservedResources{
		CpuShares:     int64(r.Cpu.CpuShares),
		MemoryMB:      int64(r.Memory.MemoryMB),
		DiskMB:        int64(r.Disk.DiskMB),
		ReservedPorts: r.Networks.ReservedHostPorts,
	}
}

func driverFromStructs(d *structs.DriverInfo) *api.DriverInfo {
	return &api.DriverInfo{
		Attributes:        maps.Clone(d.Attributes),
		Detected:          d.Detected,
		Healthy:           d.Healthy,
		HealthDescription: d.HealthDescription,
		UpdateTime:        d.UpdateTime,
	}
}

func driverToStructs(d *api.DriverInfo) *structs.DriverInfo {
	return &structs.DriverInfo{
		Attributes:        maps.Clone(d.Attributes),
		Detected:          d.Detected,
		Healthy:           d.Healthy,
		HealthDescription: d.HealthDescription,
		UpdateTime:        d.UpdateTime,
	}
}

func drainStrategyFromStructs(d *structs.DrainStrategy) *api.DrainStrategy {
	if d == nil {
		return nil
	}
	return &api.DrainStrategy{
		DrainSpec:     api.DrainSpec{Deadline: d.Deadline, IgnoreSystemJobs: d.IgnoreSystemJobs},
		ForceDeadline: d.ForceDeadline,
		StartedAt:     d.StartedAt,
	}
}

func drainStrategyToStructs(d *api.DrainStrategy) *structs.DrainStrategy {
	if d == nil {
		return nil
	}
	return &structs.DrainStrategy{
		Deadline:         d.Deadline,
		IgnoreSystemJobs: d.IgnoreSystemJobs,
		ForceDeadline:    d.ForceDeadline,
		StartedAt:        d.StartedAt,
	}
}

func drainMetadataFromStructs(m *structs.DrainMetadata) *api.DrainMetadata {
	if m == nil {
		return nil
	}
	return &api.DrainMetadata{
		StartedAt:  m.StartedAt,
		UpdatedAt:  m.UpdatedAt,
		Status:     api.DrainStatus(m.Status),
		AccessorID: m.AccessorID,
		Meta:       maps.Clone(m.Meta),
	}
}

func drainMetadataToStructs(m *api.DrainMetadata) *structs.DrainMetadata {
	if m == nil {
		return nil
	}
	return &structs.DrainMetadata{
		StartedAt:  m.StartedAt,
		UpdatedAt:  m.UpdatedAt,
		Status:     string(m.Status),
		AccessorID: m.AccessorID,
		Meta:       maps.Clone(m.Meta),
	}
}

func nodeEventFromStructs(e *structs.NodeEvent) *api.NodeEvent {
	return &api.NodeEvent{
		Message:     e.Message,
		Subsystem:   e.Subsystem,
		Details:     maps.Clone(e.Details),
		Timestamp:   e.Timestamp,
		CreateIndex: e.CreateIndex,
	}
}

func nodeEventToStructs(e *api.NodeEvent) *structs.NodeEvent {
	return &structs.NodeEvent{
		Message:     e.Message,
		Subsystem:   e.Subsystem,
		Details:     maps.Clone(e.Details),
		Timestamp:   e.Timestamp,
		CreateIndex: e.CreateIndex,
	}
}
