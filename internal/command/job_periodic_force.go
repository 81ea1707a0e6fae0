package command

import (
	"flag"
	"fmt"
)

func init() { register("job periodic force", jobPeriodicForceCmd) }

func jobPeriodicForceCmd() *cmd {
	var detach bool
	c := &cmd{
		Name: "job periodic force", Args: "<job>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Launch a periodic job now, regardless of its schedule",
	}
	c.Flags = func(fs *flag.FlagSet) {
		detachFlag(fs, &detach)
	}
	c.Run = func(e *env, args []string) error {
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		evalID, _, err := cl.Jobs().PeriodicForce(id, e.write())
		if err != nil {
			return apiError("forcing periodic job "+id, err)
		}
		return e.followEval(detach, evalID, fmt.Sprintf("Job %q launched", id))
	}
	return c
}
