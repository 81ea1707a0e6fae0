package command

import (
	"flag"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

func init() { register("job run", jobRunCmd) }

func jobRunCmd() *cmd {
	var (
		detach, followDeploy bool
		checkIdx             optUint
		jf                   jobFileFlags
	)
	c := &cmd{
		Name: "job run", Args: "<file>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Run a new job or update an existing one",
		Help: "Submits the job file (HCL2, or JSON as `job inspect` prints it; \"-\" reads\n" +
			"stdin), then monitors the evaluation it creates until it finishes and,\n" +
			"when the new version rolls out through a deployment, the deployment\n" +
			"until it succeeds, fails or waits for `drover deployment promote`.\n\n" +
			"Exit codes: 0 all placed and deployed (or -detach), 1 error or failed\n" +
			"deployment, 2 placement failures.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&detach, "detach", false, "Return right after submitting, with the evaluation ID.")
		fs.BoolVar(&followDeploy, "monitor-deployment", true, "After the evaluation, follow the deployment it started (-monitor-deployment=false stops after the evaluation).")
		fs.Var(&checkIdx, "check-index", "Register only if the job's modify index matches (0: the job must not exist).")
		jf.register(fs)
	}
	c.Run = func(e *env, args []string) error {
		job, err := e.loadJob(args[0], &jf)
		if err != nil {
			return err
		}
		resp, err := e.register(job, checkIdx.v, checkIdx.set)
		if err != nil || resp.EvalID == "" {
			return err
		}
		if detach {
			fmt.Fprintf(e.stdout, "Job registration successful\nEvaluation ID: %s\n", resp.EvalID)
			return nil
		}
		last, err := e.monitorEval(resp.EvalID)
		if err != nil || !followDeploy {
			return err
		}
		return e.followRollout(derefStr(job.ID), resp.JobModifyIndex, last)
	}
	return c
}

// followRollout monitors the deployment of the submitted version, if any.
// It runs only when every placement succeeded: with placement failures the
// run already exits 2 and the rollout cannot finish until capacity comes.
func (e *env) followRollout(jobID string, specIndex uint64, last *api.Evaluation) error {
	id, err := e.submittedDeployment(jobID, specIndex, last)
	if err != nil || id == "" {
		return err
	}
	return e.monitorDeployment(id)
}

// register submits the job; periodic and parameterized jobs create no
// eval, so an empty EvalID means "nothing to monitor".
func (e *env) register(job *api.Job, checkIdx uint64, enforce bool) (*api.JobRegisterResponse, error) {
	c, err := e.api()
	if err != nil {
		return nil, err
	}
	if e.namespace != "" && job.Namespace == nil {
		job.Namespace = &e.namespace
	}
	opts := &api.RegisterOptions{EnforceIndex: enforce, ModifyIndex: checkIdx}
	resp, _, err := c.Jobs().RegisterOpts(job, opts, e.write())
	if err != nil {
		return nil, e.atPositions(apiError("submitting job", err))
	}
	if resp.Warnings != "" {
		fmt.Fprintf(e.stderr, "Job warnings:\n%s\n", resp.Warnings)
	}
	if resp.EvalID == "" {
		fmt.Fprintln(e.stdout, "Job registration successful (periodic or parameterized: no evaluation created)")
	}
	return resp, nil
}
