package command

import (
	"flag"

	"github.com/hashicorp/nomad/api"
)

func init() { register("deployment promote", deploymentPromoteCmd) }

func deploymentPromoteCmd() *cmd {
	var groups strList
	var detach bool
	c := &cmd{
		Name: "deployment promote", Args: "<deployment>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Promote a deployment's canaries",
		Help:     "Promotes the canaries (all, or -group's) and follows the deployment to its end unless -detach.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.Var(&groups, "group", "Promote only this task group's canaries. Repeatable.")
		detachFlag(fs, &detach)
	}
	c.Run = func(e *env, args []string) error {
		if detach {
			return e.deploymentUpdate(args[0], "promoting", func(d *api.Deployments, id string) (*api.DeploymentUpdateResponse, error) {
				if len(groups) > 0 {
					r, _, err := d.PromoteGroups(id, groups, e.write())
					return r, err
				}
				r, _, err := d.PromoteAll(id, e.write())
				return r, err
			})
		}
		id, err := e.resolveDeployment(args[0])
		if err != nil {
			return err
		}
		return e.promote(id, groups, false)
	}
	return c
}
