package command

import (
	"fmt"
	"sort"
	"time"

	"github.com/hashicorp/nomad/api"
)

func init() { register("status", statusCmd) }

// statusCmd is the top-level `status`: every job, or one job's status.
func statusCmd() *cmd {
	c := &cmd{
		Name: "status", Args: "[job]", MaxArgs: 1, Read: true,
		Synopsis: "List jobs, or display the status of one job",
		Help:     "Without an argument lists every job; with a job ID (or a unique\nprefix) shows that job as `drover job status` does.",
	}
	c.Run = func(e *env, args []string) error {
		if len(args) == 1 {
			return e.jobStatus(args[0], false)
		}
		return e.jobList()
	}
	return c
}

// jobList prints every job in the namespace.
func (e *env) jobList() error {
	c, err := e.api()
	if err != nil {
		return err
	}
	jobs, _, err := c.Jobs().List(e.query())
	if err != nil {
		return apiError("listing jobs", err)
	}
	return outputList(e, jobs, "No running jobs", e.jobTable)
}

func (e *env) jobTable(jobs []*api.JobListStub) {
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].ID < jobs[j].ID })
	rows := [][]string{{"ID", "Type", "Priority", "Status", "Submit Date"}}
	for _, j := range jobs {
		rows = append(rows, []string{
			j.ID, jobTypeLabel(j.Type, j.Periodic, j.ParameterizedJob), fmt.Sprint(j.Priority),
			jobStatusLabel(j.Status, j.Stop), e.when(time.Unix(0, j.SubmitTime)),
		})
	}
	writeColumns(e.stdout, rows)
}

// jobTypeLabel marks periodic and parameterized jobs as Nomad does.
func jobTypeLabel(typ string, periodic, parameterized bool) string {
	switch {
	case periodic:
		return typ + "/periodic"
	case parameterized:
		return typ + "/parameterized"
	}
	return typ
}

// jobStatusLabel shows a stopped job that is still winding down.
func jobStatusLabel(status string, stopped bool) string {
	if stopped && status != "dead" {
		return status + " (stopped)"
	}
	return status
}
