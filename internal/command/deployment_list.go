package command

import (
	"fmt"
	"io"
	"sort"

	"github.com/hashicorp/nomad/api"
)

func init() { register("deployment list", deploymentListCmd) }

func deploymentListCmd() *cmd {
	c := &cmd{
		Name: "deployment list", Read: true,
		Synopsis: "List deployments",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		ds, _, err := cl.Deployments().List(e.query())
		if err != nil {
			return apiError("listing deployments", err)
		}
		return e.output(ds, func() error { e.deploymentTable(ds); return nil })
	}
	return c
}

func (e *env) deploymentTable(ds []*api.Deployment) {
	if len(ds) == 0 {
		fmt.Fprintln(e.stdout, "No deployments found")
		return
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].CreateIndex > ds[j].CreateIndex })
	rows := [][]string{{"ID", "Job ID", "Job Version", "Status", "Description"}}
	for _, d := range ds {
		rows = append(rows, []string{e.short(d.ID), d.JobID, fmt.Sprint(d.JobVersion), d.Status, d.StatusDescription})
	}
	writeColumns(e.stdout, rows)
}

// deploymentGroups prints a deployment's per-group progress.
func deploymentGroups(w io.Writer, d *api.Deployment) {
	rows := [][]string{{"Task Group", "Promoted", "Desired", "Canaries", "Placed", "Healthy", "Unhealthy", "Progress Deadline"}}
	for _, g := range sortedKeys(d.TaskGroups) {
		s := d.TaskGroups[g]
		deadline := "<none>"
		if !s.RequireProgressBy.IsZero() {
			deadline = s.RequireProgressBy.Local().Format("2006-01-02T15:04:05Z07:00")
		}
		rows = append(rows, []string{g, fmt.Sprint(s.Promoted), itoa(s.DesiredTotal), itoa(s.DesiredCanaries),
			itoa(s.PlacedAllocs), itoa(s.HealthyAllocs), itoa(s.UnhealthyAllocs), deadline})
	}
	fmt.Fprintln(w)
	writeColumns(w, rows)
}
