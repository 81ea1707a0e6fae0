package command

import "fmt"

func init() { register("namespace delete", namespaceDeleteCmd) }

func namespaceDeleteCmd() *cmd {
	c := &cmd{
		Name: "namespace delete", Args: "<namespace>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Delete a namespace (it must have no jobs)",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		if _, err := cl.Namespaces().Delete(args[0], e.write()); err != nil {
			return apiError("deleting namespace", err)
		}
		fmt.Fprintf(e.stdout, "Successfully deleted namespace %q!\n", args[0])
		return nil
	}
	return c
}
