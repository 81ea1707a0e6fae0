package jobdiff

import (
	"slices"
	"strconv"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
)

// Update kinds as Nomad's plan reports them in TaskGroupDiff.Updates; the
// CLI prints them verbatim, e.g. `Task Group: "web" (1 create, 2 ignore)`.
const (
	UpdateIgnore      = "ignore"
	UpdateCreate      = "create"
	UpdateDestroy     = "destroy"
	UpdateMigrate     = "migrate"
	UpdateCanary      = "canary"
	UpdateInPlace     = "in-place update"
	UpdateDestructive = "create/destroy update"
)

// Annotations Nomad attaches to tasks and to a group's Count field.
const (
	AnnotationForcesCreate      = "forces create"
	AnnotationForcesDestroy     = "forces destroy"
	AnnotationForcesInPlace     = "forces in-place update"
	AnnotationForcesDestructive = "forces create/destroy update"
)

// Annotate adds what the scheduler decided to a diff from Diff: each group's
// Updates counts (from the plan's DesiredTGUpdates, keyed by group name),
// "forces create"/"forces destroy" on a changed Count, and on each changed
// task whether it forces an in-place or a create/destroy update. Calling it
// twice does not duplicate annotations.
func Annotate(d *api.JobDiff, desired map[string]*structs.DesiredUpdates) {
	if d == nil {
		return
	}
	for _, tg := range d.TaskGroups {
		if u := desired[tg.Name]; u != nil {
			tg.Updates = updateCounts(u)
		}
		annotateCount(tg)
		for _, t := range tg.Tasks {
			annotateTask(t, tg.Type)
		}
	}
}

// updateCounts renames the scheduler's counters to Nomad's update kinds,
// keeping only non-zero ones. Preemptions are reported elsewhere in the
// plan response (PreemptedAllocs), so like Nomad they are not listed here.
func updateCounts(u *structs.DesiredUpdates) map[string]uint64 {
	out := map[string]uint64{}
	for k, n := range map[string]uint64{
		UpdateIgnore:      u.Ignore,
		UpdateCreate:      u.Place,
		UpdateDestroy:     u.Stop,
		UpdateMigrate:     u.Migrate,
		UpdateCanary:      u.Canary,
		UpdateInPlace:     u.InPlaceUpdate,
		UpdateDestructive: u.DestructiveUpdate,
	} {
		if n != 0 {
			out[k] = n
		}
	}
	return out
}

// annotateCount marks a Count change with the direction it moves the
// allocations.
func annotateCount(tg *api.TaskGroupDiff) {
	for _, f := range tg.Fields {
		if f.Name != "Count" {
			continue
		}
		oldN, _ := strconv.Atoi(f.Old) // "" (unset) reads as 0
		newN, _ := strconv.Atoi(f.New)
		switch {
		case newN > oldN:
			f.Annotations = appendOnce(f.Annotations, AnnotationForcesCreate)
		case newN < oldN:
			f.Annotations = appendOnce(f.Annotations, AnnotationForcesDestroy)
		}
	}
}

// annotateTask says how a changed task reaches its new version. A task
// arriving or leaving with its whole group is simply created or destroyed;
// otherwise Nomad's rule applies: the client can apply a new kill timeout,
// service, constraint, affinity, spread or log rotation to a running task,
// anything else (driver, config, env, resources, artifacts, templates,
// meta...) needs a new allocation.
func annotateTask(t *api.TaskDiff, groupType string) {
	if t.Type == TypeNone {
		return
	}
	if groupType == TypeAdded || groupType == TypeDeleted {
		switch t.Type {
		case TypeAdded:
			t.Annotations = appendOnce(t.Annotations, AnnotationForcesCreate)
			return
		case TypeDeleted:
			t.Annotations = appendOnce(t.Annotations, AnnotationForcesDestroy)
			return
		}
	}
	if destructive(t) {
		t.Annotations = appendOnce(t.Annotations, AnnotationForcesDestructive)
	} else {
		t.Annotations = appendOnce(t.Annotations, AnnotationForcesInPlace)
	}
}

// inPlaceObjects are task blocks whose changes don't restart the task.
var inPlaceObjects = fieldSet("Service", "Constraint", "Affinity", "Spread")

func destructive(t *api.TaskDiff) bool {
	for _, f := range t.Fields {
		if f.Type != TypeNone && f.Name != "KillTimeout" {
			return true
		}
	}
	for _, o := range t.Objects {
		switch {
		case o.Type == TypeNone || inPlaceObjects[o.Name]:
		case o.Name == "LogConfig":
			// Rotation settings apply live; turning logging on or off
			// changes how the task is started.
			if fieldChanged(o.Fields, "Disabled") {
				return true
			}
		default:
			return true
		}
	}
	return false
}

func fieldChanged(fs []*api.FieldDiff, name string) bool {
	for _, f := range fs {
		if f.Name == name && f.Type != TypeNone {
			return true
		}
	}
	return false
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
