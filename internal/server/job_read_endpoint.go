package server

import (
	"context"
	"strings"
	"sync"

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
			if reply.Summaries[i], err = e.srv.summaries.summarize(ws, st, j); err != nil {
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

// Endpoints of what a job remembers beside its versions: scale status and
// scaling events, submitted sources, stability and version tags.

// checkSubmission bounds a submitted source and names what is wrong.
func checkSubmission(s *structs.JobSubmission) error {
	if s == nil {
		return nil
	}
	if len(s.Source)+len(s.Variables) > structs.MaxJobSubmissionBytes {
		return BadRequest("Submission.Source: %d bytes with variables, over the %d byte limit", len(s.Source)+len(s.Variables), structs.MaxJobSubmissionBytes)
	}
	switch s.Format {
	case "", "hcl1", "hcl2", "json":
		return nil
	}
	return BadRequest("Submission.Format: %q is not one of hcl2, hcl1, json", s.Format)
}

// ScaleStatus answers a job's scale status: per group, the desired count,
// placed, running, healthy and unhealthy allocs, and recent events.
func (e *JobEndpoint) ScaleStatus(ctx context.Context, args *structs.JobSpecificRequest) (*structs.JobScaleStatusResponse, error) {
	reply := &structs.JobScaleStatusResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		job, err := st.JobByID(ws, args.Namespace, args.JobID)
		if err != nil || job == nil {
			reply.Status = nil
			return st.Index(state.TableJobs), err
		}
		allocs, err := st.AllocsByJob(ws, job.Namespace, job.ID, false)
		if err != nil {
			return 0, err
		}
		events, err := st.ScalingEventsByJob(ws, job.Namespace, job.ID)
		if err != nil {
			return 0, err
		}
		reply.Status = scaleStatus(job, allocs, events)
		return max(job.ModifyIndex, st.Index(state.TableAllocs), st.Index(state.TableScalingEvent)), nil
	})
	return reply, err
}

func scaleStatus(job *structs.Job, allocs []*structs.Allocation, events *structs.JobScalingEvents) *structs.JobScaleStatus {
	out := &structs.JobScaleStatus{JobID: job.ID, Namespace: job.Namespace, JobCreateIndex: job.CreateIndex,
		JobModifyIndex: job.JobModifyIndex, JobStopped: job.Stop, TaskGroups: map[string]structs.TaskGroupScaleStatus{}}
	for _, tg := range job.TaskGroups {
		g := structs.TaskGroupScaleStatus{Desired: tg.Count}
		if events != nil {
			g.Events = events.ScalingEvents[tg.Name]
		}
		out.TaskGroups[tg.Name] = g
	}
	for _, a := range allocs {
		g, ok := out.TaskGroups[a.TaskGroup]
		if !ok || a.TerminalStatus() {
			continue
		}
		g.Placed++
		if a.ClientStatus == structs.AllocClientStatusRunning {
			g.Running++
		}
		if h := a.DeploymentStatus; h != nil && h.Healthy != nil {
			if *h.Healthy {
				g.Healthy++
			} else {
				g.Unhealthy++
			}
		}
		out.TaskGroups[a.TaskGroup] = g
	}
	return out
}

// GetSubmission answers the source a job version was submitted as (nil
// when it was registered without one).
func (e *JobEndpoint) GetSubmission(ctx context.Context, args *structs.JobSubmissionRequest) (*structs.JobSubmissionResponse, error) {
	reply := &structs.JobSubmissionResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		reply.Submission, err = st.JobSubmission(ws, args.Namespace, args.JobID, args.Version)
		return st.Index(state.TableJobSubmission), err
	})
	return reply, err
}

// Stable marks a job version stable or not (`job revert` to the latest
// stable version, and auto_revert, read it).
func (e *JobEndpoint) Stable(ctx context.Context, args *structs.JobStabilityArgs) (*structs.JobStabilityResponse, error) {
	reply := &structs.JobStabilityResponse{}
	if _, err := e.version(args.Namespace, args.JobID, args.Version); err != nil {
		return nil, err
	}
	index, err := e.srv.raftApply(ctx, structs.JobStabilityRequestType, &structs.JobStabilityRequest{
		Namespace: namespaceOrDefault(args.Namespace), JobID: args.JobID, Version: args.Version, Stable: args.Stable})
	if err != nil {
		return nil, err
	}
	reply.Index, reply.JobModifyIndex = index, index
	return reply, nil
}

// TagVersion names a job version (or removes a name). A name is unique
// within the job: tagging another version with it moves it.
func (e *JobEndpoint) TagVersion(ctx context.Context, args *structs.JobTagArgs) (*structs.JobTagResponse, error) {
	reply := &structs.JobTagResponse{}
	if args.Name == "" {
		return nil, BadRequest("Name: missing tag name")
	}
	job, err := e.lookup(args.Namespace, args.JobID)
	if err != nil {
		return nil, err
	}
	req := &structs.JobVersionTagRequest{Namespace: job.Namespace, JobID: job.ID, Name: args.Name}
	if args.Untag {
		if !e.hasTag(job, args.Name) {
			return nil, NotFound("job %q has no version tagged %q", job.ID, args.Name)
		}
	} else {
		req.Version = args.Version
		if args.Latest {
			req.Version = job.Version
		}
		if _, err := e.version(job.Namespace, job.ID, req.Version); err != nil {
			return nil, err
		}
		req.Tag = &structs.JobVersionTag{Name: args.Name, Description: args.Description, TaggedTime: e.srv.now().UnixNano()}
	}
	if reply.Index, err = e.srv.raftApply(ctx, structs.JobVersionTagRequestType, req); err != nil {
		return nil, err
	}
	return reply, nil
}

// version returns a stored job version or a 404 naming it.
func (e *JobEndpoint) version(namespace, jobID string, version uint64) (*structs.Job, error) {
	ns := namespaceOrDefault(namespace)
	v, err := e.srv.State().JobByIDAndVersion(nil, ns, jobID, version)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, NotFound("job %q has no version %d in namespace %q", jobID, version, ns)
	}
	return v, nil
}

func (e *JobEndpoint) hasTag(job *structs.Job, name string) bool {
	versions, err := e.srv.State().JobVersionsByID(nil, job.Namespace, job.ID)
	if err != nil {
		return false
	}
	for _, v := range versions {
		if v.VersionTag != nil && v.VersionTag.Name == name {
			return true
		}
	}
	return false
}

// SummarizeJob computes a job's summary from its current allocs and the
// queued counts of its latest processed eval. It is derived on read, so it
// can never drift from the allocs.
func SummarizeJob(ws memdb.WatchSet, st *state.StateStore, job *structs.Job) (*structs.JobSummary, error) {
	sum := &structs.JobSummary{JobID: job.ID, Namespace: job.Namespace, Summary: map[string]structs.TaskGroupSummary{},
		CreateIndex: job.CreateIndex, ModifyIndex: job.ModifyIndex}
	for _, tg := range job.TaskGroups {
		sum.Summary[tg.Name] = structs.TaskGroupSummary{}
	}
	allocs, err := st.AllocsByJob(ws, job.Namespace, job.ID, false)
	if err != nil {
		return nil, err
	}
	for _, a := range allocs {
		g := sum.Summary[a.TaskGroup]
		countAlloc(&g, a)
		sum.Summary[a.TaskGroup] = g
		sum.ModifyIndex = max(sum.ModifyIndex, a.ModifyIndex)
	}
	if err := addQueued(ws, st, job, sum); err != nil {
		return nil, err
	}
	if job.IsMultiInstanceParent() {
		children, err := summarizeChildren(ws, st, job)
		if err != nil {
			return nil, err
		}
		sum.Children = children
	}
	return sum, nil
}

func countAlloc(g *structs.TaskGroupSummary, a *structs.Allocation) {
	switch a.ClientStatus {
	case structs.AllocClientStatusPending:
		g.Starting++
	case structs.AllocClientStatusRunning:
		g.Running++
	case structs.AllocClientStatusComplete:
		g.Complete++
	case structs.AllocClientStatusFailed:
		g.Failed++
	case structs.AllocClientStatusLost:
		g.Lost++
	case structs.AllocClientStatusUnknown:
		g.Unknown++
	}
}

// addQueued takes the queued counts of the newest processed eval.
func addQueued(ws memdb.WatchSet, st *state.StateStore, job *structs.Job, sum *structs.JobSummary) error {
	evals, err := st.EvalsByJob(ws, job.Namespace, job.ID)
	if err != nil {
		return err
	}
	var latest *structs.Evaluation
	for _, e := range evals {
		if e.Status == structs.EvalStatusComplete && (latest == nil || e.ModifyIndex > latest.ModifyIndex) {
			latest = e
		}
	}
	if latest == nil {
		return nil
	}
	for name, n := range latest.QueuedAllocations {
		if g, ok := sum.Summary[name]; ok {
			g.Queued = n
			sum.Summary[name] = g
		}
	}
	return nil
}

func summarizeChildren(ws memdb.WatchSet, st *state.StateStore, parent *structs.Job) (*structs.JobChildrenSummary, error) {
	jobs, err := st.Jobs(ws, parent.Namespace)
	if err != nil {
		return nil, err
	}
	c := &structs.JobChildrenSummary{}
	for _, j := range jobs {
		if j.ParentID != parent.ID {
			continue
		}
		switch j.Status {
		case structs.JobStatusPending:
			c.Pending++
		case structs.JobStatusRunning:
			c.Running++
		default:
			c.Dead++
		}
	}
	return c, nil
}

// summaryMemo keeps each job's last summary with the watch channels of the
// reads that made it. While none has fired, the job's allocs and evals
// (and a parent's children) are as they were, so the summary still holds:
// a job listing then costs a few channel checks per job instead of a walk
// over every alloc of every job.
type summaryMemo struct {
	mu sync.Mutex
	m  map[structs.NamespacedID]memoSummary
}

type memoSummary struct {
	job *structs.Job // the version summarized: a new version is a new object
	sum *structs.JobSummary
	ws  memdb.WatchSet
}

// memoJobsMax bounds the memo: past it (deleted jobs' entries piling up),
// it starts over.
const memoJobsMax = 100_000

// summarize is SummarizeJob through the memo. The summary returned may be
// shared: callers must not change it.
func (m *summaryMemo) summarize(ws memdb.WatchSet, st *state.StateStore, job *structs.Job) (*structs.JobSummary, error) {
	key := structs.NamespacedID{Namespace: job.Namespace, ID: job.ID}
	m.mu.Lock()
	e, ok := m.m[key]
	m.mu.Unlock()
	if ok && e.job == job && !anyFired(e.ws) {
		addWatches(ws, e.ws)
		return e.sum, nil
	}
	own := memdb.NewWatchSet()
	sum, err := SummarizeJob(own, st, job)
	if err != nil {
		return nil, err
	}
	addWatches(ws, own)
	m.mu.Lock()
	if m.m == nil || len(m.m) >= memoJobsMax {
		m.m = map[structs.NamespacedID]memoSummary{}
	}
	m.m[key] = memoSummary{job: job, sum: sum, ws: own}
	m.mu.Unlock()
	return sum, nil
}

func anyFired(ws memdb.WatchSet) bool {
	for ch := range ws {
		select {
		case <-ch:
			return true
		default:
		}
	}
	return false
}

func addWatches(dst, src memdb.WatchSet) {
	if dst == nil {
		return
	}
	for ch := range src {
		dst.Add(ch)
	}
}
