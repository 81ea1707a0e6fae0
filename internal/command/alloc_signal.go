package command

import (
	"flag"
	"fmt"
)

func init() { register("alloc signal", allocSignalCmd) }

func allocSignalCmd() *cmd {
	var signal, task string
	c := &cmd{
		Name: "alloc signal", Args: "<alloc> [<task>]", MinArgs: 1, MaxArgs: 2,
		Synopsis: "Send a signal to an allocation's tasks",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&signal, "s", "SIGKILL", "The signal to send.")
		fs.StringVar(&task, "task", "", "Signal only this task (may also be given as the second argument).")
	}
	c.Run = func(e *env, args []string) error {
		if len(args) == 2 {
			task = args[1]
		}
		a, err := e.fetchAlloc(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		if err := cl.Allocations().Signal(a, e.query(), task, signal); err != nil {
			return apiError("signalling allocation "+a.ID, err)
		}
		fmt.Fprintf(e.stdout, "Sent %s to allocation %q\n", signal, e.short(a.ID))
		return nil
	}
	return c
}
