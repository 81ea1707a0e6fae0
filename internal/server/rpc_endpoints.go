package server

import (
	"context"
	"reflect"

	"github.com/drover-project/drover/internal/rpcwire"
)

// The RPC listener serves the same endpoint methods the HTTP API calls,
// each under its wire name ("Job.Register", "Eval.List", ...). A follower
// forwards a call under the name it was asked, so the names are the
// endpoints' own. An endpoint is func(ctx, *A) (*R, error); rpcMethodOf
// wraps one with what the listener needs to decode its arguments, so a
// new endpoint takes one line in this table.

// rpcMethod is one endpoint as the RPC listener calls it.
type rpcMethod struct {
	newArgs func() any                                       // an empty argument value to decode into
	serve   func(ctx context.Context, args any) (any, error) // the endpoint on those arguments
	// args and reply are the call's types: the structs reachable from
	// them are the RPC format (TestRPCFields_OnlyEverAppended).
	args, reply reflect.Type
}

// rpcMethodOf adapts an endpoint to the RPC listener. Its error goes out
// with its code (rpcwire.Encode), since net/rpc carries only the text.
func rpcMethodOf[A, R any](endpoint func(context.Context, *A) (*R, error)) rpcMethod {
	return rpcMethod{
		args: reflect.TypeFor[A](), reply: reflect.TypeFor[R](),
		newArgs: func() any { return new(A) },
		serve: func(ctx context.Context, args any) (any, error) {
			reply, err := endpoint(ctx, args.(*A))
			if err != nil {
				return nil, rpcwire.Encode(err, ErrorCode(err))
			}
			return reply, nil
		},
	}
}

// rpcMethods is every endpoint the RPC listener serves, by wire name.
func (s *Server) rpcMethods() map[string]rpcMethod {
	return map[string]rpcMethod{
		"Job.Register":         rpcMethodOf(s.Job.Register),
		"Job.Deregister":       rpcMethodOf(s.Job.Deregister),
		"Job.Scale":            rpcMethodOf(s.Job.Scale),
		"Job.Evaluate":         rpcMethodOf(s.Job.Evaluate),
		"Job.Revert":           rpcMethodOf(s.Job.Revert),
		"Job.Validate":         rpcMethodOf(s.Job.Validate),
		"Job.Plan":             rpcMethodOf(s.Job.Plan),
		"Job.Dispatch":         rpcMethodOf(s.Job.Dispatch),
		"Job.PeriodicForce":    rpcMethodOf(s.Job.PeriodicForce),
		"Job.List":             rpcMethodOf(s.Job.List),
		"Job.GetJob":           rpcMethodOf(s.Job.GetJob),
		"Job.GetJobVersions":   rpcMethodOf(s.Job.GetJobVersions),
		"Job.Evaluations":      rpcMethodOf(s.Job.Evaluations),
		"Job.Allocations":      rpcMethodOf(s.Job.Allocations),
		"Job.Summary":          rpcMethodOf(s.Job.Summary),
		"Job.Deployments":      rpcMethodOf(s.Job.Deployments),
		"Job.LatestDeployment": rpcMethodOf(s.Job.LatestDeployment),
		"Job.ScaleStatus":      rpcMethodOf(s.Job.ScaleStatus),
		"Job.GetSubmission":    rpcMethodOf(s.Job.GetSubmission),
		"Job.Stable":           rpcMethodOf(s.Job.Stable),
		"Job.TagVersion":       rpcMethodOf(s.Job.TagVersion),

		"Eval.List":        rpcMethodOf(s.Eval.List),
		"Eval.GetEval":     rpcMethodOf(s.Eval.GetEval),
		"Eval.Allocations": rpcMethodOf(s.Eval.Allocations),
		"Eval.Delete":      rpcMethodOf(s.Eval.Delete),
		"Eval.Count":       rpcMethodOf(s.Eval.Count),
		// The remote workers' calls (remote_worker.go).
		"Eval.Dequeue": rpcMethodOf(s.Eval.Dequeue),
		"Eval.Ack":     rpcMethodOf(s.Eval.Ack),
		"Eval.Nack":    rpcMethodOf(s.Eval.Nack),
		"Eval.Update":  rpcMethodOf(s.Eval.Update),

		"Search.PrefixSearch": rpcMethodOf(s.Search.PrefixSearch),
		"Search.FuzzySearch":  rpcMethodOf(s.Search.FuzzySearch),

		// Region.List describes this server's region; it is not forwarded.
		"Region.List": rpcMethodOf(s.Region.List),

		"Alloc.List":     rpcMethodOf(s.Alloc.List),
		"Alloc.GetAlloc": rpcMethodOf(s.Alloc.GetAlloc),
		"Alloc.Stop":     rpcMethodOf(s.Alloc.Stop),

		"Deployment.List":          rpcMethodOf(s.Deployment.List),
		"Deployment.GetDeployment": rpcMethodOf(s.Deployment.GetDeployment),
		"Deployment.Allocations":   rpcMethodOf(s.Deployment.Allocations),
		"Deployment.Promote":       rpcMethodOf(s.Deployment.Promote),
		"Deployment.Fail":          rpcMethodOf(s.Deployment.Fail),
		"Deployment.Pause":         rpcMethodOf(s.Deployment.Pause),

		// The client's calls keep their names: Node.Register, Node.UpdateStatus
		// (the heartbeat), Node.GetClientAllocs and Node.UpdateAlloc.
		"Node.Register":          rpcMethodOf(s.Node.Register),
		"Node.UpdateStatus":      rpcMethodOf(s.Node.UpdateStatus),
		"Node.GetClientAllocs":   rpcMethodOf(s.Node.GetClientAllocs),
		"Node.UpdateAlloc":       rpcMethodOf(s.Node.UpdateAlloc),
		"Node.UpdateDrain":       rpcMethodOf(s.Node.UpdateDrain),
		"Node.UpdateEligibility": rpcMethodOf(s.Node.UpdateEligibility),
		"Node.Evaluate":          rpcMethodOf(s.Node.Evaluate),
		"Node.List":              rpcMethodOf(s.Node.List),
		"Node.GetNode":           rpcMethodOf(s.Node.GetNode),
		"Node.GetAllocs":         rpcMethodOf(s.Node.GetAllocs),

		"Operator.SchedulerGetConfiguration": rpcMethodOf(s.Operator.SchedulerGetConfiguration),
		"Operator.SchedulerSetConfiguration": rpcMethodOf(s.Operator.SchedulerSetConfiguration),
		"Operator.RaftGetConfiguration":      rpcMethodOf(s.Operator.RaftGetConfiguration),

		"Status.Leader":    rpcMethodOf(s.Status.Leader),
		"Status.Peers":     rpcMethodOf(s.Status.Peers),
		"Status.RaftStats": rpcMethodOf(s.Status.RaftStats),

		"System.GarbageCollect": rpcMethodOf(s.System.GarbageCollect),

		"NodePool.List":   rpcMethodOf(s.NodePool.List),
		"NodePool.Get":    rpcMethodOf(s.NodePool.Get),
		"NodePool.Upsert": rpcMethodOf(s.NodePool.Upsert),
		"NodePool.Delete": rpcMethodOf(s.NodePool.Delete),
		"NodePool.Jobs":   rpcMethodOf(s.NodePool.Jobs),
		"NodePool.Nodes":  rpcMethodOf(s.NodePool.Nodes),

		// The native families: ServiceRegistration.Upsert and DeleteByID
		// are the client's calls.
		"ServiceRegistration.Upsert":     rpcMethodOf(s.ServiceRegistration.Upsert),
		"ServiceRegistration.DeleteByID": rpcMethodOf(s.ServiceRegistration.DeleteByID),
		"ServiceRegistration.List":       rpcMethodOf(s.ServiceRegistration.List),
		"ServiceRegistration.GetService": rpcMethodOf(s.ServiceRegistration.GetService),
		"ServiceRegistration.ByJob":      rpcMethodOf(s.ServiceRegistration.ByJob),
		"ServiceRegistration.ByAlloc":    rpcMethodOf(s.ServiceRegistration.ByAlloc),

		"Variables.Apply": rpcMethodOf(s.Variables.Apply),
		"Variables.Read":  rpcMethodOf(s.Variables.Read),
		"Variables.List":  rpcMethodOf(s.Variables.List),

		"Keyring.Rotate":     rpcMethodOf(s.Keyring.Rotate),
		"Keyring.List":       rpcMethodOf(s.Keyring.List),
		"Keyring.Delete":     rpcMethodOf(s.Keyring.Delete),
		"Keyring.InstallKEK": rpcMethodOf(s.Keyring.InstallKEK),

		"WorkloadIdentity.Sign": rpcMethodOf(s.WorkloadIdentity.Sign),
		"WorkloadIdentity.JWKS": rpcMethodOf(s.WorkloadIdentity.JWKS),

		"Plan.Submit": rpcMethodOf(s.Plan.Submit),

		"Cluster.ServerStats":               rpcMethodOf(s.Cluster.ServerStats),
		"Cluster.Members":                   rpcMethodOf(s.Cluster.Members),
		"Cluster.RemoveRaftPeer":            rpcMethodOf(s.Cluster.RemoveRaftPeer),
		"Cluster.TransferLeadership":        rpcMethodOf(s.Cluster.TransferLeadership),
		"Cluster.AutopilotGetConfiguration": rpcMethodOf(s.Cluster.AutopilotGetConfiguration),
		"Cluster.AutopilotSetConfiguration": rpcMethodOf(s.Cluster.AutopilotSetConfiguration),
		"Cluster.ServerHealth":              rpcMethodOf(s.Cluster.ServerHealth),
		"Cluster.SnapshotRestore":           rpcMethodOf(s.Cluster.SnapshotRestore),

		"Namespace.List":   rpcMethodOf(s.Namespace.List),
		"Namespace.Get":    rpcMethodOf(s.Namespace.Get),
		"Namespace.Upsert": rpcMethodOf(s.Namespace.Upsert),
		"Namespace.Delete": rpcMethodOf(s.Namespace.Delete),

		// ACL.ResolveToken lets client agents check the requests for the
		// allocations they run (fs, logs, signals) themselves.
		"ACL.ResolveToken": rpcMethodOf(s.ACL.ResolveToken),
	}
}
