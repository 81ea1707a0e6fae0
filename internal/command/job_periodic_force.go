package command

import (
	"fmt"
)

func init() { register("job periodic force", jobPeriodicForceCmd) }

func jobPeriodicForceCmd() *cmd {
	c := &cmd{
		Name: "job periodic force", Args: "<job>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Launch a periodic job now, regardless of its schedule",
	}
	return evalWrite(c, func(e *env, args []string) (string, string, error) {
		id, err := e.resolveJob(args[0])
		if err != nil {
			return "", "", err
		}
		cl, _ := e.api()
		evalID, _, err := cl.Jobs().PeriodicForce(id, e.write())
		if err != nil {
			return "", "", apiError("forcing periodic job "+id, err)
		}
		return evalID, fmt.Sprintf("Job %q launched", id), nil
	})
}
