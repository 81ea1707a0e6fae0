package server

import (
	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/structs"
)

// Each registered method (methods.go) names its access rule: who may
// call it when ACLs are enabled. Method.Call checks it before anything
// else, on the server that answers, so each call is checked wherever it
// comes from (the HTTP API in-process, or the RPC port) and exactly once
// per server it reaches.

// methodCheck decides a call with the caller's resolved ACL.
type methodCheck func(s *Server, a *acl.ACL, args structs.RPCInfo) bool

// access is a method's rule.
type access struct {
	// check decides with the caller's ACL (resolved from its token).
	check methodCheck
	// self: the endpoint authenticates the caller itself (node calls by
	// node SecretID or credential, public status reads, the KEK hand-over
	// that proves itself by opening keys the receiver holds).
	self bool
	// serverOnly: only servers call it; it needs the server credential
	// (auth/server_credential.go) instead of a token.
	serverOnly bool
	// workloadIdentity: a workload identity (a JWT) is let through for the
	// endpoint to verify against its own paths (variables).
	workloadIdentity bool
	// object and jobBody: the rule reads the object the request names
	// (structs.ObjectRequest) or the job it carries (structs.JobRequest);
	// TestMethods_KindMatchesArguments holds the argument types to it.
	object, jobBody bool
}

func rule(check methodCheck) access { return access{check: check} }

var (
	selfChecked = access{self: true}
	serverOnly  = access{serverOnly: true}
	// byVariablePath: an ACL token's variables rules, or a workload
	// identity's own paths, checked per path by the endpoint
	// (auth.Service.AuthorizeVariable).
	byVariablePath = access{check: anyCaller, workloadIdentity: true}
	managementOnly = rule(management)
	anyToken       = rule(anyCaller)
	nodeRead       = coarse((*acl.ACL).AllowNodeRead)
	nodeWrite      = coarse((*acl.ACL).AllowNodeWrite)
	operatorRead   = coarse((*acl.ACL).AllowOperatorRead)
	operatorWrite  = coarse((*acl.ACL).AllowOperatorWrite)
	agentWrite     = coarse((*acl.ACL).AllowAgentWrite)
)

// authorize checks a call against its method's rule.
func (s *Server) authorizeCall(m *spec, args structs.RPCInfo) error {
	if !s.auth.ACLEnabled() {
		return nil
	}
	switch {
	case m.access.serverOnly:
		return s.auth.AuthorizeServerCall(args)
	case m.access.self:
		return nil
	case m.access.workloadIdentity && auth.LooksLikeJWT(args.RequestToken()):
		return nil // the endpoint verifies the identity and its paths
	}
	a, err := s.auth.ResolveToken(args.RequestToken())
	if err != nil {
		return err
	}
	if m.access.check == nil || !m.access.check(s, a, args) {
		return ErrPermissionDenied
	}
	return nil
}

func management(_ *Server, a *acl.ACL, _ structs.RPCInfo) bool { return a.IsManagement() }

// serviceDelete: a client deleting its own registrations is checked by
// node secret in the endpoint; an operator needs submit-job.
func serviceDelete(s *Server, a *acl.ACL, args structs.RPCInfo) bool {
	if req, ok := args.(*structs.ServiceRegistrationDeleteByIDRequest); ok && req.NodeID != "" {
		return true
	}
	return nsCapCheck(acl.NamespaceCapabilitySubmitJob)(s, a, args)
}

// anyCaller allows every caller whose token resolves (the anonymous one
// included); the endpoint filters what it answers.
func anyCaller(*Server, *acl.ACL, structs.RPCInfo) bool { return true }

// namespaceNamed requires a capability in the namespace the request names.
func namespaceNamed(_ *Server, a *acl.ACL, args structs.RPCInfo) bool {
	req, ok := args.(*structs.NamespaceSpecificRequest)
	return ok && a.AllowNamespace(req.Name)
}

func coarse(allowed func(*acl.ACL) bool) access {
	return rule(func(_ *Server, a *acl.ACL, _ structs.RPCInfo) bool { return allowed(a) })
}

func requestNamespace(args structs.RPCInfo) string {
	return namespaceOrDefault(args.RequestNamespace())
}

// nsCap requires one of caps in the request's namespace.
func nsCap(caps ...string) access { return rule(nsCapCheck(caps...)) }

func nsCapCheck(caps ...string) methodCheck {
	return func(_ *Server, a *acl.ACL, args structs.RPCInfo) bool {
		return anyCapability(a, requestNamespace(args), caps)
	}
}

// nsListCap is nsCap for lists, which also accept namespace "*": they
// then answer only what the caller may see (aclListFilter).
func nsListCap(capability string) access {
	return rule(func(_ *Server, a *acl.ACL, args structs.RPCInfo) bool {
		ns := requestNamespace(args)
		return ns == "*" || a.AllowNamespaceOperation(ns, capability)
	})
}

// jobBodyCap requires capability in the namespace the request's job goes
// to: its own Namespace, else the request's.
func jobBodyCap(capability string) access {
	return access{jobBody: true, check: func(_ *Server, a *acl.ACL, args structs.RPCInfo) bool {
		ns := requestNamespace(args)
		if job := requestJob(args); job != nil && job.Namespace != "" {
			ns = job.Namespace
		}
		return a.AllowNamespaceOperation(ns, capability)
	}}
}

func requestJob(args structs.RPCInfo) *structs.Job {
	if r, ok := args.(structs.JobRequest); ok {
		return r.RequestJob()
	}
	return nil
}

// objectCap requires one of caps in the namespace of the eval, alloc or
// deployment the request names; an unknown ID is checked against the
// request's namespace (the endpoint then answers "not found").
func objectCap(objectKind string, caps ...string) access {
	return access{object: true, check: func(s *Server, a *acl.ACL, args structs.RPCInfo) bool {
		ns, ok := s.auth.NamespaceOf(objectKind, requestObjectID(args))
		if !ok {
			ns = requestNamespace(args)
		}
		return anyCapability(a, ns, caps)
	}}
}

// requestObjectID is the global ID the request names (structs.ObjectRequest).
func requestObjectID(args structs.RPCInfo) string {
	if r, ok := args.(structs.ObjectRequest); ok {
		return r.RequestObjectID()
	}
	return ""
}

func anyCapability(a *acl.ACL, ns string, caps []string) bool {
	for _, c := range caps {
		if a.AllowNamespaceOperation(ns, c) {
			return true
		}
	}
	return false
}

// nodePoolCap requires capability on every node pool the request names
// (Nomad's node_pool rules); withNodeRead also requires node read (a
// pool's nodes).
func nodePoolCap(capability string, withNodeRead bool) access {
	return rule(func(_ *Server, a *acl.ACL, args structs.RPCInfo) bool {
		if withNodeRead && !a.AllowNodeRead() {
			return false
		}
		var names []string
		switch req := args.(type) {
		case *structs.NodePoolSpecificRequest:
			names = []string{req.Name}
		case *structs.NodePoolUpsertArgs:
			for _, p := range req.NodePools {
				if p != nil {
					names = append(names, p.Name)
				}
			}
		case *structs.NodePoolDeleteArgs:
			names = req.Names
		default:
			return false
		}
		for _, name := range names {
			if !a.AllowNodePoolOperation(name, capability) {
				return false
			}
		}
		return true
	})
}
