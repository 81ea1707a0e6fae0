package command

import (
	"flag"
)

// deployWrite is evalWrite for a change that rolls out through a
// deployment (job revert, job scale): after the eval, unless -detach, it
// follows the deployment the eval worked in, as job run does.
func deployWrite(c *cmd, write func(e *env, args []string) (evalID, done string, err error)) *cmd {
	var detach bool
	c.Flags = func(fs *flag.FlagSet) { detachFlag(fs, &detach) }
	c.Run = func(e *env, args []string) error {
		evalID, done, err := write(e, args)
		if err != nil {
			return err
		}
		if detach || evalID == "" {
			return e.followEval(true, evalID, done)
		}
		e.say("==> ", "%s", done)
		last, err := e.monitorEval(evalID)
		if err != nil {
			return err
		}
		if last == nil || last.DeploymentID == "" {
			return nil
		}
		return e.monitorDeployment(last.DeploymentID)
	}
	return c
}
