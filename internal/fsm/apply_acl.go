package fsm

import "github.com/drover-project/drover/internal/structs"

func (f *FSM) applyACLPolicyUpsert(req *structs.ACLPolicyUpsertRequest, index uint64) error {
	return f.state.UpsertACLPolicies(index, req.Policies)
}

func (f *FSM) applyACLPolicyDelete(req *structs.ACLPolicyDeleteRequest, index uint64) error {
	return f.state.DeleteACLPolicies(index, req.Names)
}

func (f *FSM) applyACLTokenUpsert(req *structs.ACLTokenUpsertRequest, index uint64) error {
	return f.state.UpsertACLTokens(index, req.Tokens)
}

func (f *FSM) applyACLTokenDelete(req *structs.ACLTokenDeleteRequest, index uint64) error {
	return f.state.DeleteACLTokens(index, req.AccessorIDs)
}

func (f *FSM) applyACLTokenBootstrap(req *structs.ACLTokenBootstrapRequest, index uint64) error {
	return f.state.BootstrapACLToken(index, req.ResetIndex, req.Token)
}

func (f *FSM) applyACLRoleUpsert(req *structs.ACLRoleUpsertRequest, index uint64) error {
	return f.state.UpsertACLRoles(index, req.Roles)
}

func (f *FSM) applyACLRoleDelete(req *structs.ACLRoleDeleteRequest, index uint64) error {
	return f.state.DeleteACLRoles(index, req.IDs)
}
