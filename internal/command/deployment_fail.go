package command

import "github.com/hashicorp/nomad/api"

func init() { register("deployment fail", deploymentFailCmd) }

func deploymentFailCmd() *cmd {
	c := &cmd{
		Name: "deployment fail", Args: "<deployment>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Mark a deployment failed (rolling back if auto_revert is set)",
	}
	c.Run = func(e *env, args []string) error {
		return e.deploymentUpdate(args[0], "failing", func(d *api.Deployments, id string) (*api.DeploymentUpdateResponse, error) {
			r, _, err := d.Fail(id, e.write())
			return r, err
		})
	}
	return c
}
