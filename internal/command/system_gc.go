package command

import "fmt"

func init() { register("system gc", systemGCCmd) }

func systemGCCmd() *cmd {
	c := &cmd{
		Name:     "system gc",
		Synopsis: "Run the garbage collector of terminal jobs, evals and allocations now",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		if err := cl.System().GarbageCollect(); err != nil {
			return apiError("starting garbage collection", err)
		}
		fmt.Fprintln(e.stdout, "Garbage collection started")
		return nil
	}
	return c
}
