package server

import "github.com/drover-project/drover/internal/structs"

// serviceRegistrationRPC registers ServiceRegistration.* on the RPC
// listener: Upsert and DeleteByID are the client's calls.
type serviceRegistrationRPC struct{ s *Server }

func (r serviceRegistrationRPC) Upsert(a *structs.ServiceRegistrationUpsertRequest, o *structs.ServiceRegistrationUpsertResponse) error {
	return serveRPC(r.s, r.s.ServiceRegistration.Upsert, a, o)
}
func (r serviceRegistrationRPC) DeleteByID(a *structs.ServiceRegistrationDeleteByIDRequest, o *structs.ServiceRegistrationUpsertResponse) error {
	return serveRPC(r.s, r.s.ServiceRegistration.DeleteByID, a, o)
}
func (r serviceRegistrationRPC) List(a *structs.ServiceRegistrationListRequest, o *structs.ServiceRegistrationListResponse) error {
	return serveRPC(r.s, r.s.ServiceRegistration.List, a, o)
}
func (r serviceRegistrationRPC) GetService(a *structs.ServiceRegistrationByNameRequest, o *structs.ServiceRegistrationsResponse) error {
	return serveRPC(r.s, r.s.ServiceRegistration.GetService, a, o)
}
func (r serviceRegistrationRPC) ByJob(a *structs.ServiceRegistrationByJobRequest, o *structs.ServiceRegistrationsResponse) error {
	return serveRPC(r.s, r.s.ServiceRegistration.ByJob, a, o)
}
func (r serviceRegistrationRPC) ByAlloc(a *structs.ServiceRegistrationByAllocRequest, o *structs.ServiceRegistrationsResponse) error {
	return serveRPC(r.s, r.s.ServiceRegistration.ByAlloc, a, o)
}
