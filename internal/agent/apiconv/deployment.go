package apiconv

import (
	"slices"

	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// DeploymentFromStructs converts a deployment for output. EvalPriority and
// each group's AutoPromote have no api field and are not shown.
func DeploymentFromStructs(d *structs.Deployment) *api.Deployment {
	if d == nil {
		return nil
	}
	return &api.Deployment{
		ID:                 d.ID,
		Namespace:          d.Namespace,
		JobID:              d.JobID,
		JobVersion:         d.JobVersion,
		JobModifyIndex:     d.JobModifyIndex,
		JobSpecModifyIndex: d.JobSpecModifyIndex,
		JobCreateIndex:     d.JobCreateIndex,
		IsMultiregion:      d.IsMultiregion,
		TaskGroups:         convertMap(d.TaskGroups, deploymentStateFromStructs),
		Status:             d.Status,
		StatusDescription:  d.StatusDescription,
		CreateIndex:        d.CreateIndex,
		ModifyIndex:        d.ModifyIndex,
		CreateTime:         d.CreateTime,
		ModifyTime:         d.ModifyTime,
	}
}

func deploymentStateFromStructs(s *structs.DeploymentState) *api.DeploymentState {
	return &api.DeploymentState{
		PlacedCanaries:    slices.Clone(s.PlacedCanaries),
		AutoRevert:        s.AutoRevert,
		ProgressDeadline:  s.ProgressDeadline,
		RequireProgressBy: s.RequireProgressBy,
		Promoted:          s.Promoted,
		DesiredCanaries:   s.DesiredCanaries,
		DesiredTotal:      s.DesiredTotal,
		PlacedAllocs:      s.PlacedAllocs,
		HealthyAllocs:     s.HealthyAllocs,
		UnhealthyAllocs:   s.UnhealthyAllocs,
	}
}
