package fsm

import "github.com/drover-project/drover/internal/structs"

func (f *FSM) applyServiceRegistrationUpsert(req *structs.ServiceRegistrationUpsertRequest, index uint64) error {
	return f.state.UpsertServiceRegistrations(index, req.Services)
}

func (f *FSM) applyServiceRegistrationDelete(req *structs.ServiceRegistrationDeleteByIDRequest, index uint64) error {
	return f.state.DeleteServiceRegistrations(index, req.IDs)
}
