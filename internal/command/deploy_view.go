package command

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// deployView draws a followed deployment as it changes.
type deployView interface {
	update(d *api.Deployment) // a newer read of the deployment
	finish(d *api.Deployment) // the last read, before the outcome line
}

// newDeployView redraws in place on a terminal; anywhere else (pipes, CI
// logs) escape codes would be garbage, so it prints one line per change.
func (e *env) newDeployView() deployView {
	if e.tty {
		return &ttyDeployView{e: e}
	}
	return &lineDeployView{e: e, groups: map[string]string{}}
}

// isTerminal reports whether w is a character device; TERM=dumb opts out
// of cursor movement even then.
func isTerminal(w io.Writer, getenv func(string) string) bool {
	f, ok := w.(*os.File)
	if !ok || getenv("TERM") == "dumb" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// ttyDeployView redraws the whole block whenever it changes.
type ttyDeployView struct {
	e     *env
	lines int    // lines drawn last time, to move the cursor back over
	last  string // what was drawn, so an unchanged read redraws nothing
}

func (v *ttyDeployView) update(d *api.Deployment) {
	s := v.e.renderDeployment(d)
	if s == v.last {
		return
	}
	if v.lines > 0 {
		fmt.Fprintf(v.e.stdout, "\x1b[%dA\x1b[J", v.lines) // cursor up, clear to end
	}
	fmt.Fprint(v.e.stdout, s)
	v.last, v.lines = s, strings.Count(s, "\n")
}

func (v *ttyDeployView) finish(d *api.Deployment) { v.update(d) }

// lineDeployView prints a timestamped line for each change of the status
// or of a group's counts, then the full block once at the end.
type lineDeployView struct {
	e      *env
	status string
	groups map[string]string
}

func (v *lineDeployView) update(d *api.Deployment) {
	if s := d.Status + ": " + d.StatusDescription; s != v.status {
		v.e.say("    ", "Deployment %q %s", v.e.short(d.ID), s)
		v.status = s
	}
	for _, g := range sortedKeys(d.TaskGroups) {
		if p := groupProgress(d.TaskGroups[g]); p != v.groups[g] {
			v.e.say("    ", "Task group %q: %s", g, p)
			v.groups[g] = p
		}
	}
}

func (v *lineDeployView) finish(d *api.Deployment) {
	v.update(d)
	fmt.Fprint(v.e.stdout, v.e.renderDeployment(d))
}

func groupProgress(s *api.DeploymentState) string {
	p := fmt.Sprintf("desired %d, placed %d, healthy %d, unhealthy %d",
		s.DesiredTotal, s.PlacedAllocs, s.HealthyAllocs, s.UnhealthyAllocs)
	if s.DesiredCanaries > 0 {
		p += fmt.Sprintf(", canaries %d/%d placed", len(s.PlacedCanaries), s.DesiredCanaries)
		if s.Promoted {
			p += ", promoted"
		}
	}
	return p
}

// renderDeployment is the block both views show: the deployment's status
// and a row of counts per task group, indented under the monitor lines.
func (e *env) renderDeployment(d *api.Deployment) string {
	var b strings.Builder
	b.WriteString("\n")
	writeKV(&b, [][2]string{
		{"ID", e.short(d.ID)}, {"Job ID", d.JobID}, {"Job Version", fmt.Sprint(d.JobVersion)},
		{"Status", d.Status}, {"Description", d.StatusDescription},
	})
	b.WriteString("\nDeployed\n")
	writeColumns(&b, e.deployRows(d))
	return indent(b.String(), "    ")
}

func (e *env) deployRows(d *api.Deployment) [][]string {
	canaries := false
	for _, s := range d.TaskGroups {
		canaries = canaries || s.DesiredCanaries > 0
	}
	head := []string{"Task Group", "Desired", "Placed", "Healthy", "Unhealthy", "Canaries"}
	if canaries {
		head = append(head, "Promoted")
	}
	rows := [][]string{append(head, "Progress Deadline")}
	for _, g := range sortedKeys(d.TaskGroups) {
		s := d.TaskGroups[g]
		row := []string{g, itoa(s.DesiredTotal), itoa(s.PlacedAllocs), itoa(s.HealthyAllocs),
			itoa(s.UnhealthyAllocs), itoa(s.DesiredCanaries)}
		if canaries {
			row = append(row, fmt.Sprint(s.Promoted))
		}
		rows = append(rows, append(row, e.deadline(s)))
	}
	return rows
}

func (e *env) deadline(s *api.DeploymentState) string {
	if s.RequireProgressBy.IsZero() {
		return "<none>"
	}
	return e.absTimeFmt(s.RequireProgressBy)
}
