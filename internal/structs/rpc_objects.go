package structs

// The requests that name one eval, alloc or deployment say which, so the
// server's access rules (a capability in the object's namespace) need no
// list of request types: a new request type that names an object
// implements ObjectRequest next to its fields.

// ObjectRequest is a request about one object with a global ID.
type ObjectRequest interface {
	RequestObjectID() string
}

// JobRequest is a request that carries a job body (register, plan,
// validate): its namespace is where the job goes.
type JobRequest interface {
	RequestJob() *Job
}

func (r *EvalSpecificRequest) RequestObjectID() string               { return r.EvalID }
func (r *AllocSpecificRequest) RequestObjectID() string              { return r.AllocID }
func (r *AllocStopArgs) RequestObjectID() string                     { return r.AllocID }
func (r *DeploymentSpecificRequest) RequestObjectID() string         { return r.DeploymentID }
func (r *DeploymentPromoteArgs) RequestObjectID() string             { return r.DeploymentID }
func (r *DeploymentFailArgs) RequestObjectID() string                { return r.DeploymentID }
func (r *DeploymentPauseArgs) RequestObjectID() string               { return r.DeploymentID }
func (r *DeploymentAllocHealthArgs) RequestObjectID() string         { return r.DeploymentID }
func (r *ServiceRegistrationByAllocRequest) RequestObjectID() string { return r.AllocID }

func (r *JobRegisterArgs) RequestJob() *Job { return r.Job }
func (r *JobPlanArgs) RequestJob() *Job     { return r.Job }
func (r *JobValidateArgs) RequestJob() *Job { return r.Job }
