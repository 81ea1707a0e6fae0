package scheduler

import (
	"reflect"
	"strings"

	"github.com/drover-project/drover/internal/structs"
)

// tasksUpdated reports whether moving an alloc from group a to group b
// needs a destructive update (a new alloc) rather than an in-place one.
// Anything a running task sees or was placed by is destructive: drivers,
// config, env, resources, networks, artifacts, templates, constraints,
// affinities, spreads, the ephemeral disk, and meta that tasks interpolate.
// Count, update, migrate, reschedule and restart blocks, services and meta
// no task reads are applied in place.
func tasksUpdated(a, b *structs.TaskGroup) bool {
	if len(a.Tasks) != len(b.Tasks) {
		return true
	}
	if !equal(a.Networks, b.Networks) || !equal(a.EphemeralDisk, b.EphemeralDisk) ||
		!equal(a.Constraints, b.Constraints) || !equal(a.Affinities, b.Affinities) || !equal(a.Spreads, b.Spreads) {
		return true
	}
	groupMetaChanged := !equal(a.Meta, b.Meta)
	for _, at := range a.Tasks {
		bt := b.LookupTask(at.Name)
		if bt == nil || taskUpdated(at, bt) {
			return true
		}
		if (groupMetaChanged || !equal(at.Meta, bt.Meta)) && usesMeta(bt) {
			return true
		}
	}
	return false
}

func taskUpdated(a, b *structs.Task) bool {
	return a.Driver != b.Driver || a.User != b.User ||
		!equal(a.Config, b.Config) || !equal(a.Env, b.Env) ||
		!equal(a.Resources, b.Resources) || !equal(a.Artifacts, b.Artifacts) ||
		!equal(a.Templates, b.Templates) || !equal(a.Constraints, b.Constraints) ||
		!equal(a.Affinities, b.Affinities) || !equal(a.DispatchPayload, b.DispatchPayload) ||
		!equal(a.Lifecycle, b.Lifecycle)
}

// usesMeta reports whether a task interpolates meta in its config, env,
// templates or artifacts; only then does a meta change need a restart.
func usesMeta(t *structs.Task) bool {
	var sb strings.Builder
	writeAny(&sb, t.Config)
	for k, v := range t.Env {
		sb.WriteString(k + "=" + v + "\n")
	}
	for _, tmpl := range t.Templates {
		sb.WriteString(tmpl.EmbeddedTmpl + tmpl.SourcePath + tmpl.DestPath + "\n")
	}
	for _, art := range t.Artifacts {
		sb.WriteString(art.GetterSource + art.RelativeDest + "\n")
		for _, v := range art.GetterOptions {
			sb.WriteString(v + "\n")
		}
	}
	s := sb.String()
	return strings.Contains(s, "meta.") || strings.Contains(s, "NOMAD_META_")
}

func writeAny(sb *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		sb.WriteString(x + "\n")
	case map[string]any:
		for k, e := range x {
			sb.WriteString(k + "\n")
			writeAny(sb, e)
		}
	case []any:
		for _, e := range x {
			writeAny(sb, e)
		}
	case map[string]string:
		for k, e := range x {
			sb.WriteString(k + "=" + e + "\n")
		}
	case []string:
		for _, e := range x {
			sb.WriteString(e + "\n")
		}
	}
}

// equal compares specs, treating nil and empty collections alike (a job
// decoded from JSON and one built in Go differ only in that).
func equal[T any](a, b T) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	return isEmpty(reflect.ValueOf(a)) && isEmpty(reflect.ValueOf(b))
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Map, reflect.Slice:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// jobPlacementUpdated reports whether the job-level placement rules a
// group inherits changed (constraints, affinities, spreads).
func jobPlacementUpdated(a, b *structs.Job) bool {
	return !equal(a.Constraints, b.Constraints) || !equal(a.Affinities, b.Affinities) || !equal(a.Spreads, b.Spreads)
}

// UpdateIsDestructive reports whether the reconciler (updateAction)
// would replace an alloc of job version old on node with a new alloc
// under job rather than update it in place. Insight's headroom counts on
// in-place updates changing no resources.
func UpdateIsDestructive(old, job *structs.Job, group string, node *structs.Node) bool {
	oldTG, tg := old.LookupTaskGroup(group), job.LookupTaskGroup(group)
	return oldTG == nil || tg == nil || tasksUpdated(oldTG, tg) || jobPlacementUpdated(old, job) ||
		!inDatacenters(job.Datacenters, node.Datacenter) || !inPool(job, node)
}
