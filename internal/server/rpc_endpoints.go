package server

import (
	"context"
	"maps"
	"net/rpc"

	"github.com/drover-project/drover/internal/rpcwire"
	"github.com/drover-project/drover/internal/structs"
)

// net/rpc calls a method func(args *A, reply *R) error found by
// reflection; endpoints are func(ctx, *A) (*R, error). Each family below
// is a thin type whose methods adapt one endpoint each through serveRPC,
// registered under the family's name: "Job.Register", "Eval.List", ...
// The names are the endpoint's own, so a follower forwards a call under
// the name it was asked.

// registerEndpoints registers every endpoint family with r.
func (s *Server) registerEndpoints(r *rpc.Server) error {
	families := map[string]any{
		"Job": jobRPC{s}, "Eval": evalRPC{s}, "Alloc": allocRPC{s}, "Deployment": deploymentRPC{s},
		"Node": nodeRPC{s}, "Operator": operatorRPC{s}, "Status": statusRPC{s}, "System": systemRPC{s},
		"Search": searchRPC{s}, "Region": regionRPC{s}, "Namespace": namespaceRPC{s}, "NodePool": nodePoolRPC{s},
		"Cluster": clusterRPC{s}, "Plan": planRPC{s},
	}
	maps.Copy(families, s.nativeFamilies())
	for name, rcvr := range families {
		if err := r.RegisterName(name, rcvr); err != nil {
			return err
		}
	}
	return nil
}

// serveRPC runs one endpoint call for net/rpc. The call runs on the
// server's root context, so blocking queries stop waiting at shutdown.
func serveRPC[A, R any](s *Server, endpoint func(context.Context, *A) (*R, error), args *A, reply *R) error {
	out, err := endpoint(s.ctx, args)
	if err != nil {
		return rpcwire.Encode(err, ErrorCode(err)) // net/rpc sends only the text
	}
	*reply = *out
	return nil
}

type jobRPC struct{ s *Server }

func (r jobRPC) Register(a *structs.JobRegisterArgs, o *structs.JobRegisterResponse) error {
	return serveRPC(r.s, r.s.Job.Register, a, o)
}
func (r jobRPC) Deregister(a *structs.JobDeregisterArgs, o *structs.JobDeregisterResponse) error {
	return serveRPC(r.s, r.s.Job.Deregister, a, o)
}
func (r jobRPC) Scale(a *structs.JobScaleArgs, o *structs.JobRegisterResponse) error {
	return serveRPC(r.s, r.s.Job.Scale, a, o)
}
func (r jobRPC) Evaluate(a *structs.JobEvaluateArgs, o *structs.JobRegisterResponse) error {
	return serveRPC(r.s, r.s.Job.Evaluate, a, o)
}
func (r jobRPC) Revert(a *structs.JobRevertArgs, o *structs.JobRegisterResponse) error {
	return serveRPC(r.s, r.s.Job.Revert, a, o)
}
func (r jobRPC) Validate(a *structs.JobValidateArgs, o *structs.JobValidateResponse) error {
	return serveRPC(r.s, r.s.Job.Validate, a, o)
}
func (r jobRPC) Plan(a *structs.JobPlanArgs, o *structs.JobPlanResponse) error {
	return serveRPC(r.s, r.s.Job.Plan, a, o)
}
func (r jobRPC) Dispatch(a *structs.JobDispatchArgs, o *structs.JobDispatchResponse) error {
	return serveRPC(r.s, r.s.Job.Dispatch, a, o)
}
func (r jobRPC) PeriodicForce(a *structs.JobPeriodicForceArgs, o *structs.JobPeriodicForceResponse) error {
	return serveRPC(r.s, r.s.Job.PeriodicForce, a, o)
}
func (r jobRPC) List(a *structs.JobListRequest, o *structs.JobListResponse) error {
	return serveRPC(r.s, r.s.Job.List, a, o)
}
func (r jobRPC) GetJob(a *structs.JobSpecificRequest, o *structs.SingleJobResponse) error {
	return serveRPC(r.s, r.s.Job.GetJob, a, o)
}
func (r jobRPC) GetJobVersions(a *structs.JobSpecificRequest, o *structs.JobVersionsResponse) error {
	return serveRPC(r.s, r.s.Job.GetJobVersions, a, o)
}
func (r jobRPC) Evaluations(a *structs.JobSpecificRequest, o *structs.JobEvaluationsResponse) error {
	return serveRPC(r.s, r.s.Job.Evaluations, a, o)
}
func (r jobRPC) Allocations(a *structs.JobSpecificRequest, o *structs.JobAllocationsResponse) error {
	return serveRPC(r.s, r.s.Job.Allocations, a, o)
}
func (r jobRPC) Summary(a *structs.JobSpecificRequest, o *structs.JobSummaryResponse) error {
	return serveRPC(r.s, r.s.Job.Summary, a, o)
}
func (r jobRPC) Deployments(a *structs.JobSpecificRequest, o *structs.DeploymentListResponse) error {
	return serveRPC(r.s, r.s.Job.Deployments, a, o)
}
func (r jobRPC) LatestDeployment(a *structs.JobSpecificRequest, o *structs.SingleDeploymentResponse) error {
	return serveRPC(r.s, r.s.Job.LatestDeployment, a, o)
}

type evalRPC struct{ s *Server }

func (r evalRPC) List(a *structs.EvalListRequest, o *structs.EvalListResponse) error {
	return serveRPC(r.s, r.s.Eval.List, a, o)
}
func (r evalRPC) GetEval(a *structs.EvalSpecificRequest, o *structs.SingleEvalResponse) error {
	return serveRPC(r.s, r.s.Eval.GetEval, a, o)
}
func (r evalRPC) Allocations(a *structs.EvalSpecificRequest, o *structs.EvalAllocationsResponse) error {
	return serveRPC(r.s, r.s.Eval.Allocations, a, o)
}
func (r evalRPC) Delete(a *structs.EvalDeleteArgs, o *structs.EvalDeleteResponse) error {
	return serveRPC(r.s, r.s.Eval.Delete, a, o)
}

func (r evalRPC) Count(a *structs.QueryOptions, o *structs.EvalCountResponse) error {
	return serveRPC(r.s, r.s.Eval.Count, a, o)
}

type searchRPC struct{ s *Server }

func (r searchRPC) PrefixSearch(a *structs.SearchRequest, o *structs.SearchResponse) error {
	return serveRPC(r.s, r.s.Search.PrefixSearch, a, o)
}
func (r searchRPC) FuzzySearch(a *structs.FuzzySearchRequest, o *structs.FuzzySearchResponse) error {
	return serveRPC(r.s, r.s.Search.FuzzySearch, a, o)
}

// regionRPC: Region.List describes this server's region; not forwarded.
type regionRPC struct{ s *Server }

func (r regionRPC) List(a *structs.QueryOptions, o *structs.RegionListResponse) error {
	return serveRPC(r.s, r.s.Region.List, a, o)
}

type allocRPC struct{ s *Server }

func (r allocRPC) List(a *structs.AllocListRequest, o *structs.AllocListResponse) error {
	return serveRPC(r.s, r.s.Alloc.List, a, o)
}
func (r allocRPC) GetAlloc(a *structs.AllocSpecificRequest, o *structs.SingleAllocResponse) error {
	return serveRPC(r.s, r.s.Alloc.GetAlloc, a, o)
}
func (r allocRPC) Stop(a *structs.AllocStopArgs, o *structs.AllocStopResponse) error {
	return serveRPC(r.s, r.s.Alloc.Stop, a, o)
}

type deploymentRPC struct{ s *Server }

func (r deploymentRPC) List(a *structs.DeploymentListRequest, o *structs.DeploymentListResponse) error {
	return serveRPC(r.s, r.s.Deployment.List, a, o)
}
func (r deploymentRPC) GetDeployment(a *structs.DeploymentSpecificRequest, o *structs.SingleDeploymentResponse) error {
	return serveRPC(r.s, r.s.Deployment.GetDeployment, a, o)
}
func (r deploymentRPC) Allocations(a *structs.DeploymentSpecificRequest, o *structs.DeploymentAllocationsResponse) error {
	return serveRPC(r.s, r.s.Deployment.Allocations, a, o)
}
func (r deploymentRPC) Promote(a *structs.DeploymentPromoteArgs, o *structs.DeploymentUpdateResponse) error {
	return serveRPC(r.s, r.s.Deployment.Promote, a, o)
}
func (r deploymentRPC) Fail(a *structs.DeploymentFailArgs, o *structs.DeploymentUpdateResponse) error {
	return serveRPC(r.s, r.s.Deployment.Fail, a, o)
}
func (r deploymentRPC) Pause(a *structs.DeploymentPauseArgs, o *structs.DeploymentUpdateResponse) error {
	return serveRPC(r.s, r.s.Deployment.Pause, a, o)
}

// nodeRPC keeps the client's names: Node.Register, Node.UpdateStatus (the
// heartbeat), Node.GetClientAllocs and Node.UpdateAlloc.
type nodeRPC struct{ s *Server }

func (r nodeRPC) Register(a *structs.NodeRegisterArgs, o *structs.NodeUpdateResponse) error {
	return serveRPC(r.s, r.s.Node.Register, a, o)
}
func (r nodeRPC) UpdateStatus(a *structs.NodeHeartbeatArgs, o *structs.NodeUpdateResponse) error {
	return serveRPC(r.s, r.s.Node.UpdateStatus, a, o)
}
func (r nodeRPC) GetClientAllocs(a *structs.NodeAllocsArgs, o *structs.NodeAllocsResponse) error {
	return serveRPC(r.s, r.s.Node.GetClientAllocs, a, o)
}
func (r nodeRPC) UpdateAlloc(a *structs.AllocClientUpdateArgs, o *structs.GenericResponse) error {
	return serveRPC(r.s, r.s.Node.UpdateAlloc, a, o)
}
func (r nodeRPC) UpdateDrain(a *structs.NodeUpdateDrainArgs, o *structs.NodeWriteResponse) error {
	return serveRPC(r.s, r.s.Node.UpdateDrain, a, o)
}
func (r nodeRPC) UpdateEligibility(a *structs.NodeUpdateEligibilityArgs, o *structs.NodeWriteResponse) error {
	return serveRPC(r.s, r.s.Node.UpdateEligibility, a, o)
}
func (r nodeRPC) Evaluate(a *structs.NodeEvaluateArgs, o *structs.NodeWriteResponse) error {
	return serveRPC(r.s, r.s.Node.Evaluate, a, o)
}
func (r nodeRPC) List(a *structs.NodeListRequest, o *structs.NodeListResponse) error {
	return serveRPC(r.s, r.s.Node.List, a, o)
}
func (r nodeRPC) GetNode(a *structs.NodeSpecificRequest, o *structs.SingleNodeResponse) error {
	return serveRPC(r.s, r.s.Node.GetNode, a, o)
}
func (r nodeRPC) GetAllocs(a *structs.NodeSpecificRequest, o *structs.NodeAllocationsResponse) error {
	return serveRPC(r.s, r.s.Node.GetAllocs, a, o)
}

type operatorRPC struct{ s *Server }

func (r operatorRPC) SchedulerGetConfiguration(a *structs.GenericRequest, o *structs.SchedulerConfigurationResponse) error {
	return serveRPC(r.s, r.s.Operator.SchedulerGetConfiguration, a, o)
}
func (r operatorRPC) SchedulerSetConfiguration(a *structs.SchedulerSetConfigArgs, o *structs.SchedulerSetConfigurationResponse) error {
	return serveRPC(r.s, r.s.Operator.SchedulerSetConfiguration, a, o)
}
func (r operatorRPC) RaftGetConfiguration(a *structs.GenericRequest, o *structs.RaftConfigurationResponse) error {
	return serveRPC(r.s, r.s.Operator.RaftGetConfiguration, a, o)
}

type statusRPC struct{ s *Server }

func (r statusRPC) Leader(a *structs.GenericRequest, o *structs.StatusLeaderResponse) error {
	return serveRPC(r.s, r.s.Status.Leader, a, o)
}
func (r statusRPC) Peers(a *structs.GenericRequest, o *structs.StatusPeersResponse) error {
	return serveRPC(r.s, r.s.Status.Peers, a, o)
}
func (r statusRPC) RaftStats(a *structs.GenericRequest, o *structs.RaftStatsResponse) error {
	return serveRPC(r.s, r.s.Status.RaftStats, a, o)
}

type systemRPC struct{ s *Server }

func (r systemRPC) GarbageCollect(a *structs.GenericWriteArgs, o *structs.GenericResponse) error {
	return serveRPC(r.s, r.s.System.GarbageCollect, a, o)
}

func (r jobRPC) ScaleStatus(a *structs.JobSpecificRequest, o *structs.JobScaleStatusResponse) error {
	return serveRPC(r.s, r.s.Job.ScaleStatus, a, o)
}

func (r jobRPC) GetSubmission(a *structs.JobSubmissionRequest, o *structs.JobSubmissionResponse) error {
	return serveRPC(r.s, r.s.Job.GetSubmission, a, o)
}

func (r jobRPC) Stable(a *structs.JobStabilityArgs, o *structs.JobStabilityResponse) error {
	return serveRPC(r.s, r.s.Job.Stable, a, o)
}

func (r jobRPC) TagVersion(a *structs.JobTagArgs, o *structs.JobTagResponse) error {
	return serveRPC(r.s, r.s.Job.TagVersion, a, o)
}

type nodePoolRPC struct{ s *Server }

func (r nodePoolRPC) List(a *structs.NodePoolListRequest, o *structs.NodePoolListResponse) error {
	return serveRPC(r.s, r.s.NodePool.List, a, o)
}

func (r nodePoolRPC) Get(a *structs.NodePoolSpecificRequest, o *structs.SingleNodePoolResponse) error {
	return serveRPC(r.s, r.s.NodePool.Get, a, o)
}

func (r nodePoolRPC) Upsert(a *structs.NodePoolUpsertArgs, o *structs.NodePoolWriteResponse) error {
	return serveRPC(r.s, r.s.NodePool.Upsert, a, o)
}

func (r nodePoolRPC) Delete(a *structs.NodePoolDeleteArgs, o *structs.NodePoolWriteResponse) error {
	return serveRPC(r.s, r.s.NodePool.Delete, a, o)
}

func (r nodePoolRPC) Jobs(a *structs.NodePoolSpecificRequest, o *structs.NodePoolJobsResponse) error {
	return serveRPC(r.s, r.s.NodePool.Jobs, a, o)
}

func (r nodePoolRPC) Nodes(a *structs.NodePoolSpecificRequest, o *structs.NodePoolNodesResponse) error {
	return serveRPC(r.s, r.s.NodePool.Nodes, a, o)
}
