package server

import (
	"reflect"
	"strings"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/structs"
)

// Every endpoint's first line is forward(ctx, <its method name>, args, ...),
// and forward first asks authorizeMethod: the method's rule below decides
// with the caller's ACL (args.RequestToken()), so each endpoint is checked
// wherever the call comes from (the HTTP API in-process, or the RPC port).
// A method without a rule needs a management token: an endpoint added
// without a decision fails closed, and TestMethodRules_EveryForwardedMethod
// names it.

// methodCheck decides a call.
type methodCheck func(s *Server, a *acl.ACL, args structs.RPCInfo) bool

// selfChecked marks endpoints that authenticate callers themselves: the
// node calls (node SecretID, node credential) and the public status reads.
var selfChecked methodCheck = func(*Server, *acl.ACL, structs.RPCInfo) bool { return true }

var methodRules = map[string]methodCheck{
	// Jobs: the request's namespace; a job body goes to its own.
	"Job.Register":         jobBodyCap(acl.NamespaceCapabilitySubmitJob),
	"Job.Plan":             jobBodyCap(acl.NamespaceCapabilitySubmitJob),
	"Job.Validate":         jobBodyCap(acl.NamespaceCapabilityReadJob),
	"Job.Deregister":       nsCap(acl.NamespaceCapabilitySubmitJob),
	"Job.Scale":            nsCap(acl.NamespaceCapabilityScaleJob, acl.NamespaceCapabilitySubmitJob),
	"Job.Evaluate":         nsCap(acl.NamespaceCapabilitySubmitJob),
	"Job.Revert":           nsCap(acl.NamespaceCapabilitySubmitJob),
	"Job.Dispatch":         nsCap(acl.NamespaceCapabilityDispatchJob),
	"Job.PeriodicForce":    nsCap(acl.NamespaceCapabilitySubmitJob),
	"Job.List":             nsListCap(acl.NamespaceCapabilityListJobs),
	"Job.GetJob":           nsCap(acl.NamespaceCapabilityReadJob),
	"Job.GetJobVersions":   nsCap(acl.NamespaceCapabilityReadJob),
	"Job.Evaluations":      nsCap(acl.NamespaceCapabilityReadJob),
	"Job.Allocations":      nsCap(acl.NamespaceCapabilityReadJob),
	"Job.Summary":          nsCap(acl.NamespaceCapabilityReadJob),
	"Job.Deployments":      nsCap(acl.NamespaceCapabilityReadJob),
	"Job.LatestDeployment": nsCap(acl.NamespaceCapabilityReadJob),
	"Search.PrefixSearch":  nsCap(acl.NamespaceCapabilityListJobs),
	"Search.FuzzySearch":   nsCap(acl.NamespaceCapabilityListJobs),

	// Evals, allocs, deployments: IDs are global, so the object's
	// namespace decides; lists filter per object.
	"Eval.List":                nsListCap(acl.NamespaceCapabilityReadJob),
	"Eval.Count":               nsCap(acl.NamespaceCapabilityReadJob),
	"Eval.GetEval":             objectCap(ObjectEval, acl.NamespaceCapabilityReadJob),
	"Eval.Allocations":         objectCap(ObjectEval, acl.NamespaceCapabilityReadJob),
	"Eval.Delete":              management,
	"Alloc.List":               nsListCap(acl.NamespaceCapabilityReadJob),
	"Alloc.GetAlloc":           objectCap(ObjectAlloc, acl.NamespaceCapabilityReadJob),
	"Alloc.Stop":               objectCap(ObjectAlloc, acl.NamespaceCapabilityAllocLifecycle),
	"Deployment.List":          nsListCap(acl.NamespaceCapabilityReadJob),
	"Deployment.GetDeployment": objectCap(ObjectDeployment, acl.NamespaceCapabilityReadJob),
	"Deployment.Allocations":   objectCap(ObjectDeployment, acl.NamespaceCapabilityReadJob),
	"Deployment.Promote":       objectCap(ObjectDeployment, acl.NamespaceCapabilitySubmitJob),
	"Deployment.Fail":          objectCap(ObjectDeployment, acl.NamespaceCapabilitySubmitJob),
	"Deployment.Pause":         objectCap(ObjectDeployment, acl.NamespaceCapabilitySubmitJob),

	// Nodes: the client's own calls authenticate by node secret.
	"Node.Register":          selfChecked,
	"Node.UpdateStatus":      selfChecked,
	"Node.GetClientAllocs":   selfChecked,
	"Node.UpdateAlloc":       selfChecked,
	"Node.List":              coarse((*acl.ACL).AllowNodeRead),
	"Node.GetNode":           coarse((*acl.ACL).AllowNodeRead),
	"Node.GetAllocs":         coarse((*acl.ACL).AllowNodeRead),
	"Node.UpdateDrain":       coarse((*acl.ACL).AllowNodeWrite),
	"Node.UpdateEligibility": coarse((*acl.ACL).AllowNodeWrite),
	"Node.Evaluate":          coarse((*acl.ACL).AllowNodeWrite),

	"Job.ScaleStatus":   nsCap(acl.NamespaceCapabilityReadJobScaling, acl.NamespaceCapabilityReadJob),
	"Job.GetSubmission": nsCap(acl.NamespaceCapabilityReadJob),
	"Job.Stable":        nsCap(acl.NamespaceCapabilitySubmitJob),
	"Job.TagVersion":    nsCap(acl.NamespaceCapabilitySubmitJob),

	// Namespaces: any token lists (and sees only the namespaces it holds
	// a capability in); reading one needs a capability in it; writes
	// need management.
	"Namespace.List":   anyCaller,
	"Namespace.Get":    namespaceNamed,
	"Namespace.Upsert": management,
	"Namespace.Delete": management,

	// Node pools read as nodes do; a pool's jobs list only those the
	// caller may list; pool writes need management.
	"NodePool.List":   coarse((*acl.ACL).AllowNodeRead),
	"NodePool.Get":    coarse((*acl.ACL).AllowNodeRead),
	"NodePool.Nodes":  coarse((*acl.ACL).AllowNodeRead),
	"NodePool.Jobs":   coarse((*acl.ACL).AllowNodeRead),
	"NodePool.Upsert": management,
	"NodePool.Delete": management,

	// Native services: the client's own calls authenticate by node
	// secret; reads need read-job; an operator's delete submit-job.
	"ServiceRegistration.Upsert":     selfChecked,
	"ServiceRegistration.DeleteByID": serviceDelete,
	"ServiceRegistration.List":       nsListCap(acl.NamespaceCapabilityReadJob),
	"ServiceRegistration.GetService": nsCap(acl.NamespaceCapabilityReadJob),
	"ServiceRegistration.ByJob":      nsCap(acl.NamespaceCapabilityReadJob),
	"ServiceRegistration.ByAlloc":    objectCap(ObjectAlloc, acl.NamespaceCapabilityReadJob),
	"WorkloadIdentity.Sign":          selfChecked,
	"WorkloadIdentity.JWKS":          selfChecked, // public keys

	// Variables check each path themselves (authorizeVariable: an ACL
	// token's variables rules, or a workload identity's own paths).
	"Variables.Apply": anyCaller,
	"Variables.Read":  anyCaller,
	"Variables.List":  anyCaller,
	"Keyring.List":    management,
	"Keyring.Rotate":  management,
	"Keyring.Delete":  management,
	// The KEK hand-over proves itself: it must open the root keys the
	// receiving server already holds (keyring_kek.go).
	"Keyring.InstallKEK": selfChecked,

	// Cluster operations. The remote workers' calls (a follower's worker
	// to the leader) carry the server credential (server_credential.go)
	// instead of a token.
	"Cluster.RemoveRaftPeer":            coarse((*acl.ACL).AllowOperatorWrite),
	"Cluster.TransferLeadership":        coarse((*acl.ACL).AllowOperatorWrite),
	"Cluster.AutopilotGetConfiguration": coarse((*acl.ACL).AllowOperatorRead),
	"Cluster.AutopilotSetConfiguration": coarse((*acl.ACL).AllowOperatorWrite),
	"Cluster.ServerHealth":              coarse((*acl.ACL).AllowOperatorRead),
	"Cluster.SnapshotRestore":           management,
	"Eval.Dequeue":                      selfChecked, // serverOnlyMethods
	"Eval.Update":                       selfChecked, // serverOnlyMethods
	"Plan.Submit":                       selfChecked, // serverOnlyMethods

	"Operator.RaftGetConfiguration":      coarse((*acl.ACL).AllowOperatorRead),
	"Operator.SchedulerGetConfiguration": coarse((*acl.ACL).AllowOperatorRead),
	"Operator.SchedulerSetConfiguration": coarse((*acl.ACL).AllowOperatorWrite),
	"System.GarbageCollect":              management,
}

// authorizeMethod checks a call against its method's rule.
func (s *Server) authorizeMethod(method string, args structs.RPCInfo) error {
	check, ok := methodRules[method]
	if !ok {
		check = management
	}
	if !s.auth.ACLEnabled() {
		return nil
	}
	if serverOnlyMethods[method] {
		return s.auth.AuthorizeServerCall(args)
	}
	if ptrOfCheck(check) == ptrOfCheck(selfChecked) {
		return nil
	}
	if strings.HasPrefix(method, "Variables.") && auth.LooksLikeJWT(args.RequestToken()) {
		return nil // a workload identity: the endpoint verifies it and its paths
	}
	a, err := s.auth.ResolveToken(args.RequestToken())
	if err != nil {
		return err
	}
	if !check(s, a, args) {
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
	return nsCap(acl.NamespaceCapabilitySubmitJob)(s, a, args)
}

// anyCaller allows every caller whose token resolves (the anonymous one
// included); the endpoint filters what it answers.
func anyCaller(*Server, *acl.ACL, structs.RPCInfo) bool { return true }

// namespaceNamed requires a capability in the namespace the request names.
func namespaceNamed(_ *Server, a *acl.ACL, args structs.RPCInfo) bool {
	req, ok := args.(*structs.NamespaceSpecificRequest)
	return ok && a.AllowNamespace(req.Name)
}

func coarse(allowed func(*acl.ACL) bool) methodCheck {
	return func(_ *Server, a *acl.ACL, _ structs.RPCInfo) bool { return allowed(a) }
}

func requestNamespace(args structs.RPCInfo) string {
	return namespaceOrDefault(args.RequestNamespace())
}

// nsCap requires one of caps in the request's namespace.
func nsCap(caps ...string) methodCheck {
	return func(_ *Server, a *acl.ACL, args structs.RPCInfo) bool {
		return anyCapability(a, requestNamespace(args), caps)
	}
}

// nsListCap is nsCap for lists, which also accept namespace "*": they
// then answer only what the caller may see (aclListFilter).
func nsListCap(capability string) methodCheck {
	return func(_ *Server, a *acl.ACL, args structs.RPCInfo) bool {
		ns := requestNamespace(args)
		return ns == "*" || a.AllowNamespaceOperation(ns, capability)
	}
}

// jobBodyCap requires capability in the namespace the request's job goes
// to: its own Namespace, else the request's.
func jobBodyCap(capability string) methodCheck {
	return func(_ *Server, a *acl.ACL, args structs.RPCInfo) bool {
		ns := requestNamespace(args)
		if job := requestJob(args); job != nil && job.Namespace != "" {
			ns = job.Namespace
		}
		return a.AllowNamespaceOperation(ns, capability)
	}
}

func requestJob(args structs.RPCInfo) *structs.Job {
	switch a := args.(type) {
	case *structs.JobRegisterArgs:
		return a.Job
	case *structs.JobPlanArgs:
		return a.Job
	case *structs.JobValidateArgs:
		return a.Job
	}
	return nil
}

// objectCap requires one of caps in the namespace of the eval, alloc or
// deployment the request names; an unknown ID is checked against the
// request's namespace (the endpoint then answers "not found").
func objectCap(kind string, caps ...string) methodCheck {
	return func(s *Server, a *acl.ACL, args structs.RPCInfo) bool {
		ns, ok := s.auth.NamespaceOf(kind, requestObjectID(args))
		if !ok {
			ns = requestNamespace(args)
		}
		return anyCapability(a, ns, caps)
	}
}

func requestObjectID(args structs.RPCInfo) string {
	switch a := args.(type) {
	case *structs.EvalSpecificRequest:
		return a.EvalID
	case *structs.AllocSpecificRequest:
		return a.AllocID
	case *structs.AllocStopArgs:
		return a.AllocID
	case *structs.DeploymentSpecificRequest:
		return a.DeploymentID
	case *structs.DeploymentPromoteArgs:
		return a.DeploymentID
	case *structs.DeploymentFailArgs:
		return a.DeploymentID
	case *structs.DeploymentPauseArgs:
		return a.DeploymentID
	case *structs.ServiceRegistrationByAllocRequest:
		return a.AllocID
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

func ptrOfCheck(c methodCheck) uintptr { return reflect.ValueOf(c).Pointer() }

// serverOnlyMethods are called by servers alone; with ACLs on they need the
// server credential.
var serverOnlyMethods = map[string]bool{
	"Eval.Dequeue": true,
	"Eval.Update":  true,
	"Plan.Submit":  true,
}
