package command

import (
	"flag"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

func init() { register("job stop", jobStopCmd) }

func jobStopCmd() *cmd {
	var purge, detach, noShutdownDelay bool
	var evalPriority int
	c := &cmd{
		Name: "job stop", Args: "<job>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Stop a running job",
		Help:     "Stops the job's allocations, then monitors the deregistration\nevaluation. -purge also removes the job from the state store.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&purge, "purge", false, "Remove the job from the system instead of only stopping it.")
		fs.BoolVar(&detach, "detach", false, "Return right after the request, with the evaluation ID.")
		fs.BoolVar(&noShutdownDelay, "no-shutdown-delay", false, "Stop the allocations without their groups' and tasks' shutdown_delay.")
		fs.IntVar(&evalPriority, "eval-priority", 0, "The deregistration evaluation's priority (1-100; default the job's).")
	}
	c.Run = func(e *env, args []string) error {
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		evalID, _, err := cl.Jobs().DeregisterOpts(id, &api.DeregisterOptions{Purge: purge, NoShutdownDelay: noShutdownDelay, EvalPriority: evalPriority}, e.write())
		if err != nil {
			return apiError("stopping job "+id, err)
		}
		return e.followEval(detach, evalID, fmt.Sprintf("Job %q stopped", id))
	}
	return c
}
