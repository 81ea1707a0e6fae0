package command

import "github.com/hashicorp/nomad/api"

func init() {
	register("deployment pause", func() *cmd { return deploymentPauseCmd("pause", true) })
	register("deployment resume", func() *cmd { return deploymentPauseCmd("resume", false) })
}

// deploymentPauseCmd builds both pause and resume: one endpoint, one flag.
func deploymentPauseCmd(name string, pause bool) *cmd {
	verb, syn := "pausing", "Pause a deployment"
	if !pause {
		verb, syn = "resuming", "Resume a paused deployment"
	}
	c := &cmd{
		Name: "deployment " + name, Args: "<deployment>", MinArgs: 1, MaxArgs: 1,
		Synopsis: syn,
	}
	c.Run = func(e *env, args []string) error {
		return e.deploymentUpdate(args[0], verb, func(d *api.Deployments, id string) (*api.DeploymentUpdateResponse, error) {
			r, _, err := d.Pause(id, pause, e.write())
			return r, err
		})
	}
	return c
}
