package command

import (
	"fmt"
	"strings"
)

func init() { register("job validate", jobValidateCmd) }

func jobValidateCmd() *cmd {
	var jf jobFileFlags
	c := &cmd{
		Name: "job validate", Args: "<file>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Check a job file for errors without submitting it",
		Help:     "Parses the file locally, then asks the agent to validate the job\n(POST /v1/validate/job). Exit 0 if valid, 1 otherwise.",
	}
	c.Flags = jf.register
	c.Run = func(e *env, args []string) error {
		job, err := e.loadJob(args[0], &jf)
		if err != nil {
			return err
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		resp, _, err := cl.Jobs().Validate(job, e.write())
		if err != nil {
			return e.atPositions(apiError("validating job", err))
		}
		if resp.Warnings != "" {
			fmt.Fprintf(e.stderr, "Job warnings:\n%s\n", resp.Warnings)
		}
		if len(resp.ValidationErrors) > 0 || resp.Error != "" {
			return e.atPositions(errorf("job validation failed:\n  * %s", strings.Join(validationErrors(resp.ValidationErrors, resp.Error), "\n  * ")))
		}
		fmt.Fprintln(e.stdout, "Job validation successful")
		return nil
	}
	return c
}

func validationErrors(list []string, single string) []string {
	if len(list) > 0 {
		return list
	}
	return []string{single}
}
