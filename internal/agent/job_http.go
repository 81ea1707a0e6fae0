package agent

import (
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/agent/jobdiff"
	"github.com/drover-project/drover/internal/jobspec"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// jobListTables are the tables a job listing reads: jobs, and the allocs
// and evals its summaries count (server.JobEndpoint.List's index).
var jobListTables = []string{"jobs", "allocs", "evals"}

func (h *HTTPServer) jobList(w http.ResponseWriter, r *http.Request) (any, error) {
	return h.cachedList(w, r, jobListTables, func() (any, error) {
		reply, err := readEndpoint(w, r, server.JobList.On(h.srv), &structs.JobListRequest{})
		if err != nil {
			return nil, err
		}
		stubs := make([]*api.JobListStub, 0, len(reply.Jobs))
		for i, j := range reply.Jobs {
			stubs = append(stubs, apiconv.JobListStub(j, summaryToAPI(reply.Summaries[i])))
		}
		return stubs, nil
	})
}

// jobRegister answers PUT /v1/jobs and PUT /v1/job/:id.
func (h *HTTPServer) jobRegister(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.JobRegisterRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	if req.Job == nil {
		return nil, server.BadRequest("Job: missing job in request body")
	}
	if id := r.PathValue("id"); id != "" && (req.Job.ID == nil || *req.Job.ID != id) {
		return nil, server.BadRequest("Job.ID: does not match the job ID %q in the URL", id)
	}
	warnings, err := checkJobContract(req.Job, true, h.serverProblems(r.Context(), req.Job, writeRequest(r)))
	if err != nil {
		return nil, err
	}
	reply, err := server.JobRegister.Call(r.Context(), h.srv, &structs.JobRegisterArgs{
		Job: apiconv.JobToStructs(req.Job), EnforceIndex: req.EnforceIndex, JobModifyIndex: req.JobModifyIndex,
		Submission: submissionToStructs(req.Submission), WriteRequest: writeRequest(r),
	})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.JobRegisterResponse{
		EvalID: reply.EvalID, EvalCreateIndex: reply.EvalCreateIndex,
		JobModifyIndex: reply.JobModifyIndex, Warnings: joinWarnings(reply.Warnings, warnings),
		QueryMeta: api.QueryMeta{LastIndex: reply.Index},
	}, nil
}

// jobParse answers POST /v1/jobs/parse: HCL2 to the API job, exactly what
// `drover job run` would submit. Variables is the content of a variables
// file; the server's own NOMAD_VAR_* environment never applies.
func (h *HTTPServer) jobParse(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.JobsParseRequest
	if err := decodeBody(w, r, &req); err != nil {
		return nil, err
	}
	if req.JobHCL == "" {
		return nil, server.BadRequest("JobHCL: missing job specification")
	}
	opts := jobspec.ParseOptions{Env: []string{}}
	if req.Variables != "" {
		opts.VarContents = []jobspec.VarContent{{Name: "variables.hcl", Content: []byte(req.Variables)}}
	}
	job, _, err := jobspec.Parse("job.nomad.hcl", []byte(req.JobHCL), opts)
	if err != nil {
		return nil, server.BadRequest("%v", err)
	}
	if req.Canonicalize {
		j := apiconv.JobToStructs(job)
		j.Canonicalize()
		job = apiconv.JobFromStructs(j)
	}
	return job, nil
}

func (h *HTTPServer) jobGet(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	reply, err := readEndpoint(w, r, server.JobGetJob.On(h.srv), &structs.JobSpecificRequest{JobID: id})
	return oneOf(reply.Job, apiconv.JobFromStructs, err, "job %q not found", id)
}

func (h *HTTPServer) jobDeregister(w http.ResponseWriter, r *http.Request) (any, error) {
	purge, err := boolParam(r, "purge")
	if err != nil {
		return nil, err
	}
	if _, err := boolParam(r, "global"); err != nil {
		return nil, err
	}
	noDelay, err := boolParam(r, "no_shutdown_delay")
	if err != nil {
		return nil, err
	}
	priority, err := intParam(r.URL.Query().Get("eval_priority"), "eval_priority")
	if err != nil {
		return nil, err
	}
	reply, err := server.JobDeregister.Call(r.Context(), h.srv, &structs.JobDeregisterArgs{
		JobID: r.PathValue("id"), Purge: purge, NoShutdownDelay: noDelay, EvalPriority: int(priority), WriteRequest: writeRequest(r),
	})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.JobDeregisterResponse{
		EvalID: reply.EvalID, EvalCreateIndex: reply.EvalCreateIndex,
		JobModifyIndex: reply.JobModifyIndex, QueryMeta: api.QueryMeta{LastIndex: reply.Index},
	}, nil
}

func (h *HTTPServer) jobVersions(w http.ResponseWriter, r *http.Request) (any, error) {
	diffs, err := boolParam(r, "diffs")
	if err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	reply, err := readEndpoint(w, r, server.JobGetJobVersions.On(h.srv), &structs.JobSpecificRequest{JobID: id})
	if err != nil {
		return nil, err
	}
	versions := reply.Versions
	if len(versions) == 0 {
		return nil, server.NotFound("job %q not found", id)
	}
	out := &api.JobVersionsResponse{}
	for _, v := range versions {
		out.Versions = append(out.Versions, apiconv.JobFromStructs(v))
	}
	if diffs {
		// Versions are newest first: Diffs[i] is what version i changed
		// from the one before it.
		for i := 0; i+1 < len(versions); i++ {
			out.Diffs = append(out.Diffs, jobdiff.Diff(versions[i+1], versions[i], false))
		}
	}
	return out, nil
}

func (h *HTTPServer) jobEvaluations(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.JobEvaluations.On(h.srv), &structs.JobSpecificRequest{JobID: r.PathValue("id")})
	return listOf(reply.Evaluations, apiconv.EvalFromStructs, err)
}

func (h *HTTPServer) jobAllocations(w http.ResponseWriter, r *http.Request) (any, error) {
	all, err := boolParam(r, "all")
	if err != nil {
		return nil, err
	}
	reply, err := readEndpoint(w, r, server.JobAllocations.On(h.srv), &structs.JobSpecificRequest{JobID: r.PathValue("id"), All: all})
	if err != nil {
		return nil, err
	}
	return allocStubs(reply.Allocations), nil
}

func allocStubs(allocs []*structs.Allocation) []*api.AllocationListStub {
	out := make([]*api.AllocationListStub, 0, len(allocs))
	for _, a := range allocs {
		out = append(out, apiconv.AllocStubFromStructs(a, false))
	}
	return out
}
