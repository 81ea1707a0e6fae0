package server

import "github.com/drover-project/drover/internal/structs"

// The native families on the RPC listener: ServiceRegistration.*,
// Variables.* and Keyring.*.

// nativeFamilies are registered by registerEndpoints next to the others.
func (s *Server) nativeFamilies() map[string]any {
	return map[string]any{
		"ServiceRegistration": serviceRegistrationRPC{s}, "Variables": variablesRPC{s},
		"Keyring": keyringRPC{s}, "WorkloadIdentity": workloadIdentityRPC{s},
	}
}

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

type variablesRPC struct{ s *Server }

func (r variablesRPC) Apply(a *structs.VariablesApplyArgs, o *structs.VariablesApplyResponse) error {
	return serveRPC(r.s, r.s.Variables.Apply, a, o)
}
func (r variablesRPC) Read(a *structs.VariablesReadRequest, o *structs.VariablesReadResponse) error {
	return serveRPC(r.s, r.s.Variables.Read, a, o)
}
func (r variablesRPC) List(a *structs.VariablesListRequest, o *structs.VariablesListResponse) error {
	return serveRPC(r.s, r.s.Variables.List, a, o)
}

type keyringRPC struct{ s *Server }

func (r keyringRPC) Rotate(a *structs.KeyringRotateArgs, o *structs.KeyringRotateResponse) error {
	return serveRPC(r.s, r.s.Keyring.Rotate, a, o)
}
func (r keyringRPC) List(a *structs.KeyringListRequest, o *structs.KeyringListResponse) error {
	return serveRPC(r.s, r.s.Keyring.List, a, o)
}
func (r keyringRPC) InstallKEK(a *structs.KeyringInstallKEKRequest, o *structs.KeyringInstallKEKResponse) error {
	return serveRPC(r.s, r.s.Keyring.InstallKEK, a, o)
}

type workloadIdentityRPC struct{ s *Server }

func (r workloadIdentityRPC) Sign(a *structs.WorkloadIdentitySignRequest, o *structs.WorkloadIdentitySignResponse) error {
	return serveRPC(r.s, r.s.WorkloadIdentity.Sign, a, o)
}
func (r workloadIdentityRPC) JWKS(a *structs.JWKSRequest, o *structs.JWKSResponse) error {
	return serveRPC(r.s, r.s.WorkloadIdentity.JWKS, a, o)
}
