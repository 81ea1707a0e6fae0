package command

import (
	"fmt"
	"strconv"
)

func init() { register("job revert", jobRevertCmd) }

func jobRevertCmd() *cmd {
	c := &cmd{
		Name: "job revert", Args: "<job> <version>", MinArgs: 2, MaxArgs: 2,
		Synopsis: "Revert a job to an earlier version",
	}
	return deployWrite(c, func(e *env, args []string) (string, string, error) {
		version, err := strconv.ParseUint(args[1], 10, 64)
		if err != nil {
			return "", "", errorf("version %q is not a non-negative integer", args[1])
		}
		id, err := e.resolveJob(args[0])
		if err != nil {
			return "", "", err
		}
		cl, _ := e.api()
		resp, _, err := cl.Jobs().Revert(id, version, nil, e.write(), "", "")
		if err != nil {
			return "", "", apiError("reverting job "+id, err)
		}
		return resp.EvalID, fmt.Sprintf("Job %q reverted to version %d", id, version), nil
	})
}
