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
	out := byName[api.Deployment](d)
	out.TaskGroups = convertMap(d.TaskGroups, deploymentStateFromStructs)
	return out
}

func deploymentStateFromStructs(s *structs.DeploymentState) *api.DeploymentState {
	out := byName[api.DeploymentState](s)
	out.PlacedCanaries = slices.Clone(s.PlacedCanaries)
	return out
}
