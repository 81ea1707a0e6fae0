package fsm

// Appliers of the native service catalog, variables and keyring entries.

import "github.com/drover-project/drover/internal/structs"

// nativeAppliers are the appliers of this feature's entry types (60-79),
// added to the table by New.
func (f *FSM) nativeAppliers() map[structs.MessageType]applier {
	return map[structs.MessageType]applier{
		structs.ServiceRegistrationUpsertRequestType:     decodeAndApply(f.applyServiceRegistrationUpsert),
		structs.ServiceRegistrationDeleteByIDRequestType: decodeAndApply(f.applyServiceRegistrationDelete),
		structs.VariableApplyRequestType:                 decodeAndApply(f.applyVariable),
		structs.RootKeyUpsertRequestType:                 decodeAndApply(f.applyRootKeyUpsert),
		structs.RootKeyDeleteRequestType:                 decodeAndApply(f.applyRootKeyDelete),
		structs.RootKeyStateRequestType:                  decodeAndApply(f.applyRootKeyState),
		structs.VariablesRekeyRequestType:                decodeAndApply(f.applyVariablesRekey),
	}
}

func (f *FSM) applyServiceRegistrationUpsert(req *structs.ServiceRegistrationUpsertRequest, index uint64) error {
	return f.state.UpsertServiceRegistrations(index, req.Services)
}

func (f *FSM) applyServiceRegistrationDelete(req *structs.ServiceRegistrationDeleteByIDRequest, index uint64) error {
	return f.state.DeleteServiceRegistrations(index, req.IDs)
}

func (f *FSM) applyVariable(req *structs.VariableApplyRequest, index uint64) error {
	return f.state.ApplyVariable(index, req)
}

func (f *FSM) applyRootKeyUpsert(req *structs.RootKeyUpsertRequest, index uint64) error {
	return f.state.UpsertRootKey(index, req.Key, req.Rotate)
}

func (f *FSM) applyRootKeyDelete(req *structs.RootKeyDeleteRequest, index uint64) error {
	return f.state.DeleteRootKey(index, req.KeyID)
}

func (f *FSM) applyRootKeyState(req *structs.RootKeyStateRequest, index uint64) error {
	return f.state.SetRootKeyStates(index, req.KeyIDs, req.State)
}

func (f *FSM) applyVariablesRekey(req *structs.VariablesRekeyRequest, index uint64) error {
	return f.state.RekeyVariables(index, req.Vars)
}

func init() {
	entryEventTypes[structs.ServiceRegistrationUpsertRequestType] = structs.TypeServiceRegistration
	entryEventTypes[structs.ServiceRegistrationDeleteByIDRequestType] = structs.TypeServiceDeregistration
}

// serviceEvent is the Service-topic event of a catalog row; its type says
// whether the row came or went, whatever entry changed it (a node marked
// down removes its rows in a NodeUpdateStatus entry).
func serviceEvent(reg *structs.ServiceRegistration, deleted bool) structs.Event {
	typ := structs.TypeServiceRegistration
	if deleted {
		typ = structs.TypeServiceDeregistration
	}
	return structs.Event{Topic: structs.TopicService, Type: typ, Key: reg.ServiceName, Namespace: reg.Namespace,
		FilterKeys: structs.EventFilterKeys(reg.JobID, reg.AllocID), Payload: &structs.ServiceRegistrationEvent{Service: reg}}
}
