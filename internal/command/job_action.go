package command

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"strings"

	"github.com/hashicorp/nomad/api"
)

func init() { register("job action", jobActionCmd) }

// actionTarget is where an action runs: one alloc and one of its tasks.
type actionTarget struct {
	alloc *api.Allocation
	task  string
}

func jobActionCmd() *cmd {
	var job, group, task, allocation string
	c := &cmd{
		Name: "job action", Args: "<action>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Run a task's predefined action in a running allocation",
		Help: "Runs the named action of a task (its `action` block) in a running allocation of the job and " +
			"exits with the action's exit code. Name the allocation with -allocation, or the group and task " +
			"with -group and -task (either may be left out when only one task defines the action) and a " +
			"running allocation of the group is chosen. Needs alloc-exec in the job's namespace, and read-job.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&job, "job", "", "The job whose action to run (required).")
		fs.StringVar(&group, "group", "", "The task group of the task defining the action.")
		fs.StringVar(&task, "task", "", "The task defining the action.")
		fs.StringVar(&allocation, "allocation", "", "The allocation (ID or prefix) to run the action in.")
	}
	c.Run = func(e *env, args []string) error {
		if job == "" {
			return errorf("-job is required")
		}
		jobID, err := e.resolveJob(job)
		if err != nil {
			return err
		}
		target, err := e.actionTarget(jobID, group, task, allocation, args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		code, err := cl.Jobs().ActionExec(ctx, target.alloc, jobID, target.task, false, []string{}, args[0],
			strings.NewReader(""), e.stdout, e.stderr, nil, e.query())
		if err != nil {
			return apiError("running action "+args[0], err)
		}
		return exitCodeOrNil(code)
	}
	return c
}

// actionTarget finds the task defining the action, in the given alloc's
// job or in the job, and the alloc to run it in.
func (e *env) actionTarget(jobID, group, task, allocPrefix, action string) (*actionTarget, error) {
	cl, _ := e.api()
	var alloc *api.Allocation
	var job *api.Job
	if allocPrefix != "" {
		a, err := e.fetchAlloc(allocPrefix)
		if err != nil {
			return nil, err
		}
		if a.JobID != jobID {
			return nil, errorf("allocation %s belongs to job %q, not %q", e.short(a.ID), a.JobID, jobID)
		}
		alloc, job, group = a, a.Job, a.TaskGroup
	} else {
		j, _, err := cl.Jobs().Info(jobID, e.query())
		if err != nil {
			return nil, apiError("reading job "+jobID, err)
		}
		job = j
	}
	tg, t, err := findActionTask(job, group, task, action)
	if err != nil {
		return nil, err
	}
	if alloc == nil {
		if alloc, err = e.runningAllocOf(jobID, tg); err != nil {
			return nil, err
		}
	}
	return &actionTarget{alloc: alloc, task: t}, nil
}

// findActionTask returns the one group and task (within the -group and
// -task given) whose task defines the action.
func findActionTask(job *api.Job, group, task, action string) (string, string, error) {
	var found [][2]string
	if job != nil {
		for _, tg := range job.TaskGroups {
			for _, t := range tg.Tasks {
				if (group == "" || *tg.Name == group) && (task == "" || t.Name == task) && taskDefines(t, action) {
					found = append(found, [2]string{*tg.Name, t.Name})
				}
			}
		}
	}
	switch len(found) {
	case 0:
		return "", "", errorf("no task%s defines an action %q", scopeDesc(group, task), action)
	case 1:
		return found[0][0], found[0][1], nil
	}
	return "", "", errorf("%d tasks define an action %q; name one with -group and -task", len(found), action)
}

func taskDefines(t *api.Task, action string) bool {
	for _, a := range t.Actions {
		if a != nil && a.Name == action {
			return true
		}
	}
	return false
}

func scopeDesc(group, task string) string {
	var parts []string
	if group != "" {
		parts = append(parts, "group "+group)
	}
	if task != "" {
		parts = append(parts, "task "+task)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// runningAllocOf picks a running alloc of the job's group.
func (e *env) runningAllocOf(jobID, group string) (*api.Allocation, error) {
	cl, _ := e.api()
	stubs, _, err := cl.Jobs().Allocations(jobID, false, e.query())
	if err != nil {
		return nil, apiError("listing allocations of job "+jobID, err)
	}
	for _, s := range stubs {
		if s.TaskGroup == group && s.ClientStatus == api.AllocClientStatusRunning {
			return e.fetchAlloc(s.ID)
		}
	}
	return nil, errorf("job %q has no running allocation of group %q", jobID, group)
}
