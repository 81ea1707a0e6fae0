package command

import (
	"flag"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

func init() { register("eval delete", evalDeleteCmd) }

func evalDeleteCmd() *cmd {
	var filter string
	c := &cmd{
		Name: "eval delete", Args: "[<eval>...]", MaxArgs: -1,
		Synopsis: "Delete evaluations (the scheduler must be paused)",
		Help:     "Deletes the named evaluations, or those matching -filter. Nomad\nrequires the eval broker to be paused (operator scheduler set-config).",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&filter, "filter", "", "Delete every evaluation matching this filter expression.")
	}
	c.Run = func(e *env, args []string) error {
		if (len(args) == 0) == (filter == "") {
			return errorf("give either evaluation IDs or -filter")
		}
		ids := make([]string, 0, len(args))
		for _, a := range args {
			id, err := e.resolveEval(a)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		resp, _, err := cl.Evaluations().DeleteOpts(&api.EvalDeleteRequest{EvalIDs: ids, Filter: filter}, e.write())
		if err != nil {
			return apiError("deleting evaluations", err)
		}
		n := len(ids)
		if resp != nil && resp.Count > 0 {
			n = resp.Count
		}
		fmt.Fprintf(e.stdout, "Deleted %d evaluation%s\n", n, plural(n))
		return nil
	}
	return c
}
