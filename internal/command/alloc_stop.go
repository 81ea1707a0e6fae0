package command

import (
	"flag"
	"fmt"
)

func init() { register("alloc stop", allocStopCmd) }

func allocStopCmd() *cmd {
	var detach bool
	c := &cmd{
		Name: "alloc stop", Args: "<alloc>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Stop an allocation (the scheduler replaces it)",
	}
	c.Flags = func(fs *flag.FlagSet) {
		detachFlag(fs, &detach)
	}
	c.Run = func(e *env, args []string) error {
		a, err := e.fetchAlloc(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		resp, err := cl.Allocations().Stop(a, e.query())
		if err != nil {
			return apiError("stopping allocation "+a.ID, err)
		}
		return e.followEval(detach, resp.EvalID, fmt.Sprintf("Allocation %q stopping", e.short(a.ID)))
	}
	return c
}
