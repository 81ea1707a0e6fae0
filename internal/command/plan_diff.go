package command

import (
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// The job diff printer: one marker per change type, nested by indentation,
// annotations (e.g. "forces create/destroy update") in parentheses.

func diffMarker(typ string) string {
	switch typ {
	case "Added":
		return "+"
	case "Deleted":
		return "-"
	case "Edited":
		return "+/-"
	}
	return " "
}

func (e *env) printJobDiff(d *api.JobDiff) {
	w := e.stdout
	fmt.Fprintf(w, "%s Job: %q\n", diffMarker(d.Type), d.ID)
	if d.Type == "Added" && !e.verbose {
		// A new job: Nomad's short form, one line per group and task
		// (-verbose shows every field).
		for _, tg := range d.TaskGroups {
			fmt.Fprintf(w, "%s Task Group: %q%s\n", diffMarker(tg.Type), tg.Name, groupUpdates(tg.Updates))
			for _, t := range tg.Tasks {
				fmt.Fprintf(w, "  %s Task: %q%s\n", diffMarker(t.Type), t.Name, annotations(t.Annotations))
			}
		}
		return
	}
	e.printFields(w, d.Fields, "")
	e.printObjects(w, d.Objects, "")
	for _, tg := range d.TaskGroups {
		e.printGroupDiff(w, tg)
	}
}

func (e *env) printGroupDiff(w io.Writer, tg *api.TaskGroupDiff) {
	if tg.Type == "None" && !e.verbose && len(tg.Updates) == 0 {
		return
	}
	fmt.Fprintf(w, "%s Task Group: %q%s\n", diffMarker(tg.Type), tg.Name, groupUpdates(tg.Updates))
	e.printFields(w, tg.Fields, "  ")
	e.printObjects(w, tg.Objects, "  ")
	for _, t := range tg.Tasks {
		if t.Type == "None" && !e.verbose {
			continue
		}
		fmt.Fprintf(w, "  %s Task: %q%s\n", diffMarker(t.Type), t.Name, annotations(t.Annotations))
		e.printFields(w, t.Fields, "    ")
		e.printObjects(w, t.Objects, "    ")
	}
}

// groupUpdates summarises a group's scheduler decisions, e.g.
// " (1 create, 2 in-place update)".
func groupUpdates(u map[string]uint64) string {
	var parts []string
	for _, k := range sortedKeys(u) {
		if u[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", u[k], k))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func annotations(a []string) string {
	if len(a) == 0 {
		return ""
	}
	return " (" + strings.Join(a, ", ") + ")"
}

func (e *env) printFields(w io.Writer, fields []*api.FieldDiff, pre string) {
	for _, f := range fields {
		if f.Type == "None" && !e.verbose {
			continue
		}
		fmt.Fprintf(w, "%s%s %s: %s%s\n", pre, diffMarker(f.Type), f.Name, fieldChange(f), annotations(f.Annotations))
	}
}

func fieldChange(f *api.FieldDiff) string {
	switch f.Type {
	case "Added":
		return fmt.Sprintf("%q", f.New)
	case "Deleted":
		return fmt.Sprintf("%q", f.Old)
	case "Edited":
		return fmt.Sprintf("%q => %q", f.Old, f.New)
	}
	return fmt.Sprintf("%q", f.New)
}

func (e *env) printObjects(w io.Writer, objs []*api.ObjectDiff, pre string) {
	for _, o := range objs {
		if o.Type == "None" && !e.verbose {
			continue
		}
		fmt.Fprintf(w, "%s%s %s {\n", pre, diffMarker(o.Type), o.Name)
		e.printFields(w, o.Fields, pre+"  ")
		e.printObjects(w, o.Objects, pre+"  ")
		fmt.Fprintf(w, "%s}\n", pre)
	}
}
