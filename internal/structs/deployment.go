package structs

import "time"

// Deployment statuses.
const (
	DeploymentStatusRunning    = "running"
	DeploymentStatusPaused     = "paused"
	DeploymentStatusFailed     = "failed"
	DeploymentStatusSuccessful = "successful"
	DeploymentStatusCancelled  = "cancelled"
	DeploymentStatusPending    = "pending"
	DeploymentStatusBlocked    = "blocked"
	DeploymentStatusUnblocking = "unblocking"
)

// Deployment tracks one job version's progress through its update block.
type Deployment struct {
	ID                 string
	Namespace          string
	JobID              string
	JobVersion         uint64
	JobModifyIndex     uint64
	JobSpecModifyIndex uint64
	JobCreateIndex     uint64
	IsMultiregion      bool
	TaskGroups         map[string]*DeploymentState
	Status             string
	StatusDescription  string
	EvalPriority       int
	CreateIndex        uint64
	ModifyIndex        uint64
	CreateTime         int64
	ModifyTime         int64
}

// Active reports whether the deployment is still in progress.
func (d *Deployment) Active() bool {
	switch d.Status {
	case DeploymentStatusRunning, DeploymentStatusPaused, DeploymentStatusBlocked,
		DeploymentStatusUnblocking, DeploymentStatusPending:
		return true
	}
	return false
}

// DeploymentState is one task group's progress in a deployment.
type DeploymentState struct {
	AutoRevert        bool
	AutoPromote       bool
	ProgressDeadline  time.Duration
	RequireProgressBy time.Time
	Promoted          bool
	PlacedCanaries    []string
	DesiredCanaries   int
	DesiredTotal      int
	PlacedAllocs      int
	HealthyAllocs     int
	UnhealthyAllocs   int
}

// DeploymentStatusUpdate changes a deployment's status (carried in plans).
type DeploymentStatusUpdate struct {
	DeploymentID      string
	Status            string
	StatusDescription string
}
