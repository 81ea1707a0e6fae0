package apiconv

import (
	"slices"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
)

// ServiceRegistration is a catalog row as served: Nomad's fields plus the
// health its checks gave it (a field Nomad's client ignores when decoding).
type ServiceRegistration struct {
	*api.ServiceRegistration
	Health string `json:",omitempty"`
}

// ServiceRegistrationFromStructs converts one catalog row.
func ServiceRegistrationFromStructs(s *structs.ServiceRegistration) ServiceRegistration {
	return ServiceRegistration{ServiceRegistration: &api.ServiceRegistration{
		ID: s.ID, ServiceName: s.ServiceName, Namespace: s.Namespace, NodeID: s.NodeID,
		Datacenter: s.Datacenter, JobID: s.JobID, AllocID: s.AllocID, Tags: slices.Clone(s.Tags),
		Address: s.Address, Port: s.Port, CreateIndex: s.CreateIndex, ModifyIndex: s.ModifyIndex,
	}, Health: s.Health}
}

// ServiceRegistrationsFromStructs converts a list; never nil, so an empty
// answer is [] in JSON as Nomad sends it.
func ServiceRegistrationsFromStructs(in []*structs.ServiceRegistration) []ServiceRegistration {
	out := make([]ServiceRegistration, 0, len(in))
	for _, s := range in {
		out = append(out, ServiceRegistrationFromStructs(s))
	}
	return out
}

// ServiceListFromStructs converts the per-namespace service stubs.
func ServiceListFromStructs(in []*structs.ServiceRegistrationListStub) []*api.ServiceRegistrationListStub {
	out := make([]*api.ServiceRegistrationListStub, 0, len(in))
	for _, ns := range in {
		stub := &api.ServiceRegistrationListStub{Namespace: ns.Namespace}
		for _, s := range ns.Services {
			stub.Services = append(stub.Services, &api.ServiceRegistrationStub{ServiceName: s.ServiceName, Tags: slices.Clone(s.Tags)})
		}
		out = append(out, stub)
	}
	return out
}
