package command

import (
	"fmt"

	"github.com/hashicorp/nomad/api"
)

// deploymentUpdate is the shared body of promote, fail, pause and resume:
// resolve the deployment, apply the change, report the eval it created.
func (e *env) deploymentUpdate(prefix, verb string, apply func(d *api.Deployments, id string) (*api.DeploymentUpdateResponse, error)) error {
	id, err := e.resolveDeployment(prefix)
	if err != nil {
		return err
	}
	cl, _ := e.api()
	resp, err := apply(cl.Deployments(), id)
	if err != nil {
		return apiError(verb+" deployment "+id, err)
	}
	fmt.Fprintf(e.stdout, "Deployment %q %s\n", e.short(id), pastTense[verb])
	if resp.EvalID != "" {
		fmt.Fprintf(e.stdout, "Evaluation ID: %s\n", e.short(resp.EvalID))
	}
	return nil
}

var pastTense = map[string]string{
	"promoting": "promoted", "failing": "failed", "pausing": "paused", "resuming": "resumed",
}
