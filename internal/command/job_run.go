package command

import (
	"flag"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

func init() { register("job run", jobRunCmd) }

func jobRunCmd() *cmd {
	var (
		detach   bool
		checkIdx optUint
		jf       jobFileFlags
	)
	c := &cmd{
		Name: "job run", Args: "<file>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Run a new job or update an existing one",
		Help: "Submits the job file (HCL2, or JSON as `job inspect` prints it; \"-\" reads\n" +
			"stdin), then monitors the evaluation it creates until it finishes.\n\n" +
			"Exit codes: 0 all placed (or -detach), 1 error, 2 placement failures.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&detach, "detach", false, "Return right after submitting, with the evaluation ID.")
		fs.Var(&checkIdx, "check-index", "Register only if the job's modify index matches (0: the job must not exist).")
		jf.register(fs)
	}
	c.Run = func(e *env, args []string) error {
		job, err := e.loadJob(args[0], &jf)
		if err != nil {
			return err
		}
		evalID, err := e.register(job, checkIdx.v, checkIdx.set)
		if err != nil || evalID == "" {
			return err
		}
		if detach {
			fmt.Fprintf(e.stdout, "Job registration successful\nEvaluation ID: %s\n", evalID)
			return nil
		}
		return e.monitor(evalID)
	}
	return c
}

// register submits the job; periodic and parameterized jobs create no
// eval, so the empty eval ID means "nothing to monitor".
func (e *env) register(job *api.Job, checkIdx uint64, enforce bool) (string, error) {
	c, err := e.api()
	if err != nil {
		return "", err
	}
	if e.namespace != "" && job.Namespace == nil {
		job.Namespace = &e.namespace
	}
	opts := &api.RegisterOptions{EnforceIndex: enforce, ModifyIndex: checkIdx}
	resp, _, err := c.Jobs().RegisterOpts(job, opts, e.write())
	if err != nil {
		return "", apiError("submitting job", err)
	}
	if resp.Warnings != "" {
		fmt.Fprintf(e.stderr, "Job warnings:\n%s\n", resp.Warnings)
	}
	if resp.EvalID == "" {
		fmt.Fprintln(e.stdout, "Job registration successful (periodic or parameterized: no evaluation created)")
	}
	return resp.EvalID, nil
}
