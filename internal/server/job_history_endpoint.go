package server

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

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
	index, err := e.srv.raftApply(structs.JobStabilityRequestType, &structs.JobStabilityRequest{
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
	if reply.Index, err = e.srv.raftApply(structs.JobVersionTagRequestType, req); err != nil {
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
