package command

import (
	"flag"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

// Shapes many commands share: a write that creates an evaluation, the
// delete of one object named by the command's argument, and a listing
// printed as columns.

// evalWrite makes c a write that creates an evaluation: it takes
// -detach and, unless detached, follows the eval once write reports done.
func evalWrite(c *cmd, write func(e *env, args []string) (evalID, done string, err error)) *cmd {
	var detach bool
	c.Flags = func(fs *flag.FlagSet) { detachFlag(fs, &detach) }
	c.Run = func(e *env, args []string) error {
		evalID, done, err := write(e, args)
		if err != nil {
			return err
		}
		return e.followEval(detach, evalID, done)
	}
	return c
}

// deleteOne makes c the delete of the object named by its one argument:
// doing names the call in an error, doneFormat (with the name) the
// success.
func deleteOne(c *cmd, del func(cl *api.Client, name string, w *api.WriteOptions) error, doing, doneFormat string) *cmd {
	c.MinArgs, c.MaxArgs = 1, 1
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		if err := del(cl, args[0], e.write()); err != nil {
			return apiError(doing, err)
		}
		fmt.Fprintf(e.stdout, doneFormat, args[0])
		return nil
	}
	return c
}

// listTable makes c a listing printed as columns: list fetches it (doing
// names the call in an error), header and row lay it out, and none is
// printed for an empty list. -json and -t print the list itself.
func listTable[T any](c *cmd, list func(cl *api.Client, q *api.QueryOptions) ([]T, error), doing, none string,
	header []string, row func(T) []string) *cmd {
	c.Read = true
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		items, err := list(cl, e.query())
		if err != nil {
			return apiError(doing, err)
		}
		return e.output(items, func() error {
			if len(items) == 0 && none != "" {
				fmt.Fprintln(e.stdout, none)
				return nil
			}
			rows := [][]string{header}
			for _, it := range items {
				rows = append(rows, row(it))
			}
			writeColumns(e.stdout, rows)
			return nil
		})
	}
	return c
}
