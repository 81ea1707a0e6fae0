package command

import (
	"fmt"
)

func init() { register("alloc stop", allocStopCmd) }

func allocStopCmd() *cmd {
	c := &cmd{
		Name: "alloc stop", Args: "<alloc>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Stop an allocation (the scheduler replaces it)",
	}
	return evalWrite(c, func(e *env, args []string) (string, string, error) {
		a, err := e.fetchAlloc(args[0])
		if err != nil {
			return "", "", err
		}
		cl, _ := e.api()
		resp, err := cl.Allocations().Stop(a, e.query())
		if err != nil {
			return "", "", apiError("stopping allocation "+a.ID, err)
		}
		return resp.EvalID, fmt.Sprintf("Allocation %q stopping", e.short(a.ID)), nil
	})
}
