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
		fs.BoolVar(&detach, "detach", false, "Return right away with the evaluation ID.")
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
		if detach || evalID == "" {
			fmt.Fprintf(e.stdout, "Job %q launched\nEvaluation ID: %s\n", id, orNone(evalID))
			return nil
		}
		return e.monitor(evalID)
	}
	return c
}
