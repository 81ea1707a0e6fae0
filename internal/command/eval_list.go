package command

import (
	"flag"
	"fmt"
)

func init() { register("eval list", evalListCmd) }

func evalListCmd() *cmd {
	var job, status, filter string
	var perPage int
	c := &cmd{
		Name: "eval list", Read: true,
		Synopsis: "List evaluations",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&job, "job", "", "Only evaluations of this job.")
		fs.StringVar(&status, "status", "", "Only evaluations with this status (pending, blocked, complete, failed, canceled).")
		fs.StringVar(&filter, "filter", "", "A filter expression applied by the agent.")
		fs.IntVar(&perPage, "per-page", 0, "How many evaluations to list (0: all).")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		q := e.query()
		q.Filter, q.PerPage = filter, int32(perPage)
		q.Params = map[string]string{}
		if job != "" {
			q.Params["job"] = job
		}
		if status != "" {
			q.Params["status"] = status
		}
		evals, meta, err := cl.Evaluations().List(q)
		if err != nil {
			return apiError("listing evaluations", err)
		}
		return e.output(evals, func() error {
			e.evalTable(e.stdout, evals)
			if meta.NextToken != "" {
				fmt.Fprintf(e.stdout, "\nMore evaluations follow; the next page starts at %s\n", meta.NextToken)
			}
			return nil
		})
	}
	return c
}
