package command

import (
	"fmt"
	"strconv"
)

func init() { register("job scale", jobScaleCmd) }

func jobScaleCmd() *cmd {
	c := &cmd{
		Name: "job scale", Args: "<job> [<group>] <count>", MinArgs: 2, MaxArgs: 3,
		Synopsis: "Change the count of a job's task group",
		Help:     "The group may be omitted when the job has exactly one.",
	}
	return deployWrite(c, func(e *env, args []string) (string, string, error) {
		count, err := strconv.Atoi(args[len(args)-1])
		if err != nil || count < 0 {
			return "", "", errorf("count %q is not a non-negative integer", args[len(args)-1])
		}
		id, group, err := e.scaleTarget(args[:len(args)-1])
		if err != nil {
			return "", "", err
		}
		cl, _ := e.api()
		resp, _, err := cl.Jobs().Scale(id, group, &count, "submitted using the drover CLI", false, nil, e.write())
		if err != nil {
			return "", "", apiError("scaling job "+id, err)
		}
		return resp.EvalID, fmt.Sprintf("Job %q group %q scaled to %d", id, group, count), nil
	})
}

// scaleTarget resolves the job and, if not given, its only task group.
func (e *env) scaleTarget(args []string) (string, string, error) {
	id, err := e.resolveJob(args[0])
	if err != nil {
		return "", "", err
	}
	if len(args) == 2 {
		return id, args[1], nil
	}
	cl, _ := e.api()
	job, _, err := cl.Jobs().Info(id, e.query())
	if err != nil {
		return "", "", apiError("reading job "+id, err)
	}
	if len(job.TaskGroups) != 1 {
		return "", "", errorf("job %q has %d task groups; name the one to scale", id, len(job.TaskGroups))
	}
	return id, derefStr(job.TaskGroups[0].Name), nil
}
