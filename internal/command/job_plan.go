package command

import (
	"flag"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

func init() { register("job plan", jobPlanCmd) }

// Exit codes of `job plan`, as Nomad's: scripts test for changes.
const (
	planNoChanges = 0
	planChanges   = 1
	planError     = 255
)

func jobPlanCmd() *cmd {
	var (
		jf      jobFileFlags
		noDiff  bool
		verbose bool
	)
	c := &cmd{
		Name: "job plan", Args: "<file>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Dry-run a job update and show what the scheduler would do",
		Help: "Shows the difference from the running job and the scheduler's\n" +
			"placement decisions, without changing anything.\n\n" +
			"Exit codes: 0 no allocations would change, 1 some would, 255 error.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		jf.register(fs)
		fs.BoolVar(&noDiff, "no-diff", false, "Do not show the job diff.")
		fs.BoolVar(&verbose, "verbose", false, "Show unchanged fields too, and full IDs.")
	}
	c.Run = func(e *env, args []string) error {
		e.verbose = verbose
		code, err := e.plan(args[0], &jf, !noDiff)
		if err != nil {
			return &exitError{code: planError, err: err}
		}
		return exitCodeOrNil(code)
	}
	return c
}

func exitCodeOrNil(code int) error {
	if code == 0 {
		return nil
	}
	return exitCode(code)
}

func (e *env) plan(path string, jf *jobFileFlags, diff bool) (int, error) {
	job, err := e.loadJob(path, jf)
	if err != nil {
		return 0, err
	}
	cl, err := e.api()
	if err != nil {
		return 0, err
	}
	resp, _, err := cl.Jobs().PlanOpts(job, &api.PlanOptions{Diff: true}, e.write())
	if err != nil {
		return 0, e.atPositions(apiError("planning job", err))
	}
	if diff && resp.Diff != nil {
		e.printJobDiff(resp.Diff)
	}
	e.printDryRun(resp)
	e.printCheckIndex(resp.JobModifyIndex, path)
	return planExit(resp), nil
}

// planExit says whether the plan creates, stops or replaces anything.
func planExit(resp *api.JobPlanResponse) int {
	if resp.Annotations == nil {
		if resp.Diff != nil && resp.Diff.Type != "None" {
			return planChanges
		}
		return planNoChanges
	}
	for _, u := range resp.Annotations.DesiredTGUpdates {
		if u.Place+u.Stop+u.Migrate+u.DestructiveUpdate+u.Canary+u.Preemptions > 0 {
			return planChanges
		}
	}
	return planNoChanges
}

func (e *env) printDryRun(resp *api.JobPlanResponse) {
	fmt.Fprintln(e.stdout, "\nScheduler dry-run:")
	if len(resp.FailedTGAllocs) == 0 {
		fmt.Fprintln(e.stdout, "- All tasks successfully allocated.")
	} else {
		fmt.Fprintln(e.stdout, "- WARNING: Failed to place all allocations.")
		failedAllocs(e.stdout, resp.FailedTGAllocs, "  ")
	}
	if resp.Annotations != nil && len(resp.Annotations.PreemptedAllocs) > 0 {
		fmt.Fprintln(e.stdout, "\nPreemptions:")
		e.allocTable(e.stdout, resp.Annotations.PreemptedAllocs)
	}
	if !resp.NextPeriodicLaunch.IsZero() {
		fmt.Fprintf(e.stdout, "- If submitted now, next periodic launch would be at %s.\n", e.absTimeFmt(resp.NextPeriodicLaunch))
	}
	if resp.Warnings != "" {
		fmt.Fprintf(e.stdout, "\nJob Warnings:\n%s\n", resp.Warnings)
	}
}

func (e *env) printCheckIndex(index uint64, path string) {
	fmt.Fprintf(e.stdout, "\nJob Modify Index: %d\n", index)
	fmt.Fprintf(e.stdout, "To submit the job with version verification run:\n\ndrover job run -check-index %d %s\n\n", index, path)
	fmt.Fprintln(e.stdout, "With -check-index the job is registered only if its modify index still\n"+
		"matches, so no change made since this plan is overwritten.")
}
