package command

import (
	"flag"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

func init() { register("job eval", jobEvalCmd) }

func jobEvalCmd() *cmd {
	var force, detach bool
	c := &cmd{
		Name: "job eval", Args: "<job>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Force a new evaluation of a job",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&force, "force-reschedule", false, "Reschedule failed allocations even if their reschedule policy would wait.")
		detachFlag(fs, &detach)
	}
	c.Run = func(e *env, args []string) error {
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		evalID, _, err := cl.Jobs().EvaluateWithOpts(id, api.EvalOptions{ForceReschedule: force}, e.write())
		if err != nil {
			return apiError("evaluating job "+id, err)
		}
		if detach {
			fmt.Fprintf(e.stdout, "Job %q evaluation created\nEvaluation ID: %s\n", id, evalID)
			return nil
		}
		return e.monitor(evalID)
	}
	return c
}
