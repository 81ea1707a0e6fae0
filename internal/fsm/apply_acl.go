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

func (f *FSM) applyACLAuthMethodUpsert(req *structs.ACLAuthMethodUpsertRequest, index uint64) error {
	return f.state.UpsertACLAuthMethods(index, req.AuthMethods)
}

func (f *FSM) applyACLAuthMethodDelete(req *structs.ACLAuthMethodDeleteRequest, index uint64) error {
	return f.state.DeleteACLAuthMethods(index, req.Names)
}

func (f *FSM) applyACLBindingRuleUpsert(req *structs.ACLBindingRuleUpsertRequest, index uint64) error {
	return f.state.UpsertACLBindingRules(index, req.BindingRules)
}

func (f *FSM) applyACLBindingRuleDelete(req *structs.ACLBindingRuleDeleteRequest, index uint64) error {
	return f.state.DeleteACLBindingRules(index, req.IDs)
}

func (f *FSM) applyOneTimeTokenUpsert(req *structs.OneTimeTokenUpsertRequest, index uint64) error {
	return f.state.UpsertOneTimeToken(index, req.OneTimeToken)
}

func (f *FSM) applyOneTimeTokenDelete(req *structs.OneTimeTokenDeleteRequest, index uint64) error {
	return f.state.DeleteOneTimeTokens(index, req.Secrets, req.Now)
}

func (f *FSM) applyOIDCAuthRequestUpsert(req *structs.OIDCAuthRequestUpsertRequest, index uint64) error {
	return f.state.UpsertOIDCAuthRequest(index, req.Request, req.Now)
}

func (f *FSM) applyOIDCAuthRequestDelete(req *structs.OIDCAuthRequestDeleteRequest, index uint64) error {
	return f.state.DeleteOIDCAuthRequests(index, req.States)
}
