package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/client/drivers/builtin"
	"github.com/drover-project/drover/internal/jobspec/fields"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// The contract of issue 29: nothing a client sends is silently dropped.
// Register, plan and validate check the api job against the field table
// (internal/jobspec/fields) and every task's driver config against the
// built-in driver's schema before anything else.

// driverProblems checks every task's driver config against the built-in
// driver's schema (the same decode the client runs before it starts the
// task): one line per problem, "path: message", the path naming the key.
// allKnown is true only when every task uses a driver Drover ships: a
// third-party driver's config cannot be checked without its plugin.
func driverProblems(job *api.Job) (problems []string, allKnown bool) {
	allKnown = true
	for i, tg := range job.TaskGroups {
		if tg == nil {
			continue
		}
		for j, task := range tg.Tasks {
			if task == nil {
				continue
			}
			known, ps := builtin.ConfigProblems(task.Driver, task.Config)
			allKnown = allKnown && known
			for _, p := range ps {
				path := fmt.Sprintf("TaskGroups[%d].Tasks[%d].Config", i, j)
				if p.Key != "" {
					path += "." + p.Key
				}
				problems = append(problems, fmt.Sprintf("%s: group %q task %q: %s driver %s", path, deref(tg.Name), task.Name, task.Driver, p.Message))
			}
		}
	}
	return problems, allKnown
}

// checkJobContract refuses, with one 400 naming every one, the fields the
// job sets that Drover refuses and the driver config problems; it returns
// the warnings of the fields accepted but ignored. withDrivers is false for
// validate, which reports driver problems in ValidationErrors as Nomad does.
// alsoInvalid, when the job is refused, adds the server's own validation
// problems, so that one answer lists everything to fix.
func checkJobContract(job *api.Job, withDrivers bool, alsoInvalid func() []string) (warnings string, err error) {
	refused, warned := fields.Check(job)
	var lines []string
	for _, f := range refused {
		lines = append(lines, f.String())
	}
	if withDrivers {
		ps, _ := driverProblems(job)
		lines = append(lines, ps...)
	}
	if len(lines) > 0 {
		if alsoInvalid != nil {
			lines = append(alsoInvalid(), lines...)
		}
		return "", server.BadRequest("%d problem(s): Drover refuses what it would not act on, rather than drop it:\n* %s",
			len(lines), strings.Join(lines, "\n* "))
	}
	var ws []string
	for _, f := range warned {
		ws = append(ws, "* "+f.String()+" (ignored)")
	}
	return strings.Join(ws, "\n"), nil
}

// joinWarnings joins two warning texts, either possibly empty.
func joinWarnings(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// serverProblems returns the server's validation problems of job (nil
// when it is valid or validation itself failed: the refusal stands alone).
func (h *HTTPServer) serverProblems(ctx context.Context, job *api.Job, wr structs.WriteRequest) func() []string {
	return func() []string {
		reply, err := server.JobValidate.Call(ctx, h.srv, &structs.JobValidateArgs{Job: apiconv.JobToStructs(job), WriteRequest: wr})
		if err != nil || reply == nil {
			return nil
		}
		return reply.ValidationErrors
	}
}
