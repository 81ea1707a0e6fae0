// Package jobdiff computes the job diff that `POST /v1/job/:id/plan` returns
// and `drover job plan` prints, in Nomad's api.JobDiff shape.
//
// The walk is generic (reflection over the structs package) so new job
// fields show up in plans without touching this package; the few places
// where Nomad's output is not a plain field walk are listed in tables in
// walk.go.
package jobdiff

import (
	"reflect"
	"sort"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
)

// Diff types, spelled as Nomad spells them on the wire.
const (
	TypeNone    = "None"
	TypeAdded   = "Added"
	TypeDeleted = "Deleted"
	TypeEdited  = "Edited"
)

var (
	jobType   = reflect.TypeOf(structs.Job{})
	groupType = reflect.TypeOf(structs.TaskGroup{})
	taskType  = reflect.TypeOf(structs.Task{})
)

// Diff compares the stored job (old; nil when the job is new) with the
// submitted one (new). A stop is an edit of the Stop field; only a nil new
// job is "Deleted".
//
// contextual=true adds unchanged fields (Type "None") inside changed
// blocks, as Nomad's plan does. Like Nomad, the job's, groups' and tasks'
// own fields never carry "None" entries (that would repeat the whole job on
// every plan), and unchanged blocks are left out. Task groups and tasks are
// always listed, even when unchanged, so Annotate can attach the
// scheduler's counts (e.g. "3 ignore") to them.
func Diff(old, new *structs.Job, contextual bool) *api.JobDiff {
	d := differ{contextual: contextual}
	out := &api.JobDiff{Type: presence(old != nil, new != nil)}
	switch {
	case new != nil:
		out.ID = new.ID
	case old != nil:
		out.ID = old.ID
	default:
		out.Type = TypeNone
		return out
	}
	ov, nv := structValue(old), structValue(new)
	out.Fields, out.Objects = d.level(ov, nv, jobType)
	out.TaskGroups = d.groups(groupsOf(old), groupsOf(new))
	if out.Type == "" {
		out.Type = editedIf(changedFields(out.Fields) || changedObjects(out.Objects) || changedGroups(out.TaskGroups))
	}
	return out
}

// level diffs the job, a group or a task itself: its primitive fields
// (never contextual, see Diff) and its nested blocks.
func (d differ) level(old, new reflect.Value, t reflect.Type) ([]*api.FieldDiff, []*api.ObjectDiff) {
	skip := skipFields[t]
	fields := fieldDiffs(flatPrimitives(old, skip), flatPrimitives(new, skip), false)
	return fields, changedOnly(d.objects(old, new, t, skip))
}

// changedOnly drops the "None" objects a contextual walk yields for
// unchanged sets (Datacenters): they give context only inside a changed
// block.
func changedOnly(os []*api.ObjectDiff) []*api.ObjectDiff {
	out := os[:0]
	for _, o := range os {
		if o.Type != TypeNone {
			out = append(out, o)
		}
	}
	return out
}

// groups matches task groups by name, the identity Nomad uses, and returns
// one diff per name sorted by name.
func (d differ) groups(old, new []*structs.TaskGroup) []*api.TaskGroupDiff {
	return diffByName(old, new, func(tg *structs.TaskGroup) string { return tg.Name }, d.group)
}

// diffByName pairs old and new items by name (the first of a name wins;
// nil items are skipped) and diffs every name either side has, in name
// order.
func diffByName[T, D any](old, new []*T, name func(*T) string, diff func(name string, old, new *T) D) []D {
	oldBy, newBy := byName(old, name), byName(new, name)
	var out []D
	for _, n := range unionNames(oldBy, newBy) {
		out = append(out, diff(n, oldBy[n], newBy[n]))
	}
	return out
}

func byName[T any](items []*T, name func(*T) string) map[string]*T {
	by := map[string]*T{}
	for _, it := range items {
		if it != nil && by[name(it)] == nil {
			by[name(it)] = it
		}
	}
	return by
}

func (d differ) group(name string, old, new *structs.TaskGroup) *api.TaskGroupDiff {
	gd := &api.TaskGroupDiff{Name: name, Type: presence(old != nil, new != nil)}
	gd.Fields, gd.Objects = d.level(structValue(old), structValue(new), groupType)
	gd.Tasks = d.tasks(tasksOf(old), tasksOf(new))
	if gd.Type == "" {
		gd.Type = editedIf(changedFields(gd.Fields) || changedObjects(gd.Objects) || changedTasks(gd.Tasks))
	}
	return gd
}

// tasks matches tasks by name within a group.
func (d differ) tasks(old, new []*structs.Task) []*api.TaskDiff {
	return diffByName(old, new, func(t *structs.Task) string { return t.Name }, d.task)
}

func (d differ) task(name string, old, new *structs.Task) *api.TaskDiff {
	td := &api.TaskDiff{Name: name, Type: presence(old != nil, new != nil)}
	td.Fields, td.Objects = d.level(structValue(old), structValue(new), taskType)
	if td.Type == "" {
		td.Type = editedIf(changedFields(td.Fields) || changedObjects(td.Objects))
	}
	return td
}

// presence gives the diff type implied by which side exists; "" means both
// exist and the caller must look at the contents.
func presence(hasOld, hasNew bool) string {
	switch {
	case hasOld && hasNew:
		return ""
	case hasNew:
		return TypeAdded
	case hasOld:
		return TypeDeleted
	}
	return TypeNone
}

func editedIf(changed bool) string {
	if changed {
		return TypeEdited
	}
	return TypeNone
}

func changedFields(fs []*api.FieldDiff) bool {
	for _, f := range fs {
		if f.Type != TypeNone {
			return true
		}
	}
	return false
}

func changedObjects(os []*api.ObjectDiff) bool {
	for _, o := range os {
		if o.Type != TypeNone {
			return true
		}
	}
	return false
}

func changedGroups(gs []*api.TaskGroupDiff) bool {
	for _, g := range gs {
		if g.Type != TypeNone {
			return true
		}
	}
	return false
}

func changedTasks(ts []*api.TaskDiff) bool {
	for _, t := range ts {
		if t.Type != TypeNone {
			return true
		}
	}
	return false
}

// structValue turns a possibly-nil pointer into a struct Value; the invalid
// Value stands for "absent" throughout the walk.
func structValue[T any](p *T) reflect.Value {
	if p == nil {
		return reflect.Value{}
	}
	return reflect.ValueOf(p).Elem()
}

func groupsOf(j *structs.Job) []*structs.TaskGroup {
	if j == nil {
		return nil
	}
	return j.TaskGroups
}

func tasksOf(tg *structs.TaskGroup) []*structs.Task {
	if tg == nil {
		return nil
	}
	return tg.Tasks
}

// unionNames returns the keys of both maps, sorted, so output order does not
// depend on map iteration or on the order blocks appear in the job file.
func unionNames[V any](a, b map[string]V) []string {
	seen := make(map[string]bool, len(a)+len(b))
	var names []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	sort.Strings(names)
	return names
}
