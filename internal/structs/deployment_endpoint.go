package structs

// Requests and responses of the Deployment.* endpoints.

// DeploymentListRequest lists deployments in the request's namespace ("*"
// for all).
type DeploymentListRequest struct {
	QueryOptions
}

// DeploymentListResponse is one page of deployments (Job.Deployments
// answers it too).
type DeploymentListResponse struct {
	Deployments []*Deployment
	QueryMeta
}

// DeploymentSpecificRequest addresses one deployment.
type DeploymentSpecificRequest struct {
	DeploymentID string
	QueryOptions
}

// SingleDeploymentResponse is one deployment, nil when absent (also a
// job's latest deployment).
type SingleDeploymentResponse struct {
	Deployment *Deployment
	QueryMeta
}

// DeploymentAllocationsResponse lists a deployment's allocations.
type DeploymentAllocationsResponse struct {
	Allocations []*Allocation
	QueryMeta
}

// DeploymentPromoteArgs promotes the canaries of Groups, or of every group.
type DeploymentPromoteArgs struct {
	DeploymentID string
	All          bool
	Groups       []string
	WriteRequest
}

// DeploymentFailArgs marks a deployment failed.
type DeploymentFailArgs struct {
	DeploymentID string
	WriteRequest
}

// DeploymentPauseArgs pauses (or resumes) a deployment.
type DeploymentPauseArgs struct {
	DeploymentID string
	Pause        bool
	WriteRequest
}

// DeploymentAllocHealthArgs sets the health of a deployment's allocs by
// hand (PUT /v1/deployment/allocation-health/:id).
type DeploymentAllocHealthArgs struct {
	DeploymentID           string
	HealthyAllocationIDs   []string
	UnhealthyAllocationIDs []string
	WriteRequest
}

// DeploymentUnblockArgs unblocks a multiregion deployment waiting on its
// peers.
type DeploymentUnblockArgs struct {
	DeploymentID string
	WriteRequest
}

func (r *DeploymentUnblockArgs) RequestObjectID() string { return r.DeploymentID }

// DeploymentUpdateResponse tells the caller what a deployment change wrote.
type DeploymentUpdateResponse struct {
	EvalID                string
	EvalCreateIndex       uint64
	DeploymentModifyIndex uint64
	WriteMeta
	// RevertedJobVersion is the stable version a failed deployment rolled
	// the job back to (auto_revert), nil when it did not.
	RevertedJobVersion *uint64
}
