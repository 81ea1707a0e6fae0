package server

import (
	"context"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/server/auth"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// The Job.* reads.

// List answers one page of jobs in the request's namespace (or every
// namespace for "*"), keyed "namespace.id".
func (e *JobEndpoint) List(ctx context.Context, args *structs.JobListRequest) (*structs.JobListResponse, error) {
	reply := &structs.JobListResponse{}
	if t := args.NextToken; t != "" && !strings.Contains(t, ".") {
		return nil, BadRequest("next_token: %q is not a job key (namespace.id)", t)
	}
	// Like Nomad, a job list's filter sees the whole job: Periodic and
	// ParameterizedJob are blocks that may be nil (the CLI's `job periodic
	// force` lists with `Periodic is not nil`).
	match, err := stubFilter(&args.QueryOptions, func(j *structs.Job) *structs.Job { return j })
	if err == nil {
		match, err = auth.VisibleOnly(e.srv.auth, args, acl.NamespaceCapabilityListJobs, auth.JobNamespace, match)
	}
	if err != nil {
		return nil, err
	}
	err = e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		page, err := st.JobsPage(ws, pageOptions(&args.QueryOptions), match)
		if err != nil {
			return 0, err
		}
		reply.Jobs, reply.NextToken = page.Items, page.NextToken
		reply.Summaries = make([]*structs.JobSummary, len(page.Items))
		for i, j := range page.Items {
			if reply.Summaries[i], err = SummarizeJob(ws, st, j); err != nil {
				return 0, err
			}
		}
		// Summaries follow allocs and evals: their changes are answers too.
		return max(st.Index(state.TableJobs), st.Index(state.TableAllocs), st.Index(state.TableEvals)), nil
	})
	return reply, err
}

// GetJob answers one job (nil when absent).
func (e *JobEndpoint) GetJob(ctx context.Context, args *structs.JobSpecificRequest) (*structs.SingleJobResponse, error) {
	reply := &structs.SingleJobResponse{}
	return reply, readObject(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableJobs, &reply.Job, byJob((*state.StateStore).JobByID, args),
		func(j *structs.Job) uint64 { return j.ModifyIndex })
}

// GetJobVersions answers a job's versions, newest first (none when the
// job is absent).
func (e *JobEndpoint) GetJobVersions(ctx context.Context, args *structs.JobSpecificRequest) (*structs.JobVersionsResponse, error) {
	reply := &structs.JobVersionsResponse{}
	return reply, readAtTable(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableJobVersion, &reply.Versions, byJob((*state.StateStore).JobVersionsByID, args))
}

// Evaluations answers a job's evaluations.
func (e *JobEndpoint) Evaluations(ctx context.Context, args *structs.JobSpecificRequest) (*structs.JobEvaluationsResponse, error) {
	reply := &structs.JobEvaluationsResponse{}
	return reply, readAtTable(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableEvals, &reply.Evaluations, byJob((*state.StateStore).EvalsByJob, args))
}

// Allocations answers a job's allocations: of its current version only,
// or of every version with All.
func (e *JobEndpoint) Allocations(ctx context.Context, args *structs.JobSpecificRequest) (*structs.JobAllocationsResponse, error) {
	reply := &structs.JobAllocationsResponse{}
	return reply, readAtTable(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableAllocs, &reply.Allocations,
		func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.Allocation, error) {
			return st.AllocsByJob(ws, args.Namespace, args.JobID, args.All)
		})
}

// Summary answers a job's summary, computed from its allocs and evals (nil
// when the job is absent).
func (e *JobEndpoint) Summary(ctx context.Context, args *structs.JobSpecificRequest) (*structs.JobSummaryResponse, error) {
	reply := &structs.JobSummaryResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		job, err := st.JobByID(ws, args.Namespace, args.JobID)
		reply.JobSummary = nil
		if err != nil || job == nil {
			return st.Index(state.TableJobs), err
		}
		if reply.JobSummary, err = SummarizeJob(ws, st, job); err != nil {
			return 0, err
		}
		return max(st.Index(state.TableAllocs), st.Index(state.TableJobs), st.Index(state.TableEvals)), nil
	})
	return reply, err
}

// Deployments answers a job's deployments.
func (e *JobEndpoint) Deployments(ctx context.Context, args *structs.JobSpecificRequest) (*structs.DeploymentListResponse, error) {
	reply := &structs.DeploymentListResponse{}
	return reply, readAtTable(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableDeployment, &reply.Deployments, byJob((*state.StateStore).DeploymentsByJobID, args))
}

// LatestDeployment answers a job's newest deployment (nil when none).
func (e *JobEndpoint) LatestDeployment(ctx context.Context, args *structs.JobSpecificRequest) (*structs.SingleDeploymentResponse, error) {
	reply := &structs.SingleDeploymentResponse{}
	return reply, readAtTable(e.srv, ctx, &args.QueryOptions, &reply.QueryMeta, state.TableDeployment, &reply.Deployment, byJob((*state.StateStore).LatestDeploymentByJobID, args))
}
