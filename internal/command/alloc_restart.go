package command

import (
	"flag"
	"fmt"
)

func init() { register("alloc restart", allocRestartCmd) }

func allocRestartCmd() *cmd {
	var task string
	var all bool
	c := &cmd{
		Name: "alloc restart", Args: "<alloc> [<task>]", MinArgs: 1, MaxArgs: 2,
		Synopsis: "Restart an allocation's running tasks, or one task",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&task, "task", "", "Restart only this task (may also be given as the second argument).")
		fs.BoolVar(&all, "all-tasks", false, "Restart every task, including finished lifecycle tasks.")
	}
	c.Run = func(e *env, args []string) error {
		if len(args) == 2 {
			task = args[1]
		}
		if all && task != "" {
			return errorf("-all-tasks and a task name are mutually exclusive")
		}
		a, err := e.fetchAlloc(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		if all {
			err = cl.Allocations().RestartAllTasks(a, e.query())
		} else {
			err = cl.Allocations().Restart(a, task, e.query())
		}
		if err != nil {
			return apiError("restarting allocation "+a.ID, err)
		}
		fmt.Fprintf(e.stdout, "Allocation %q restarted\n", e.short(a.ID))
		return nil
	}
	return c
}
