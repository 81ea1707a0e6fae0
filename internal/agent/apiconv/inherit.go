package apiconv

import (
	"reflect"

	"github.com/hashicorp/nomad/api"
)

// Nomad lets a partial block inherit the settings it leaves out from the
// enclosing block: a group `update { canary = 1 }` keeps the job's
// max_parallel. Only the api's nil pointers tell "left out" from "set to
// zero", so the merge has to happen here, before dereferencing; after
// conversion structs.Canonicalize can no longer tell the two apart.
//
// Only a child that is present is merged. An absent child block stays absent
// so that JobToStructs(JobFromStructs(j)) == j; structs.Canonicalize decides
// what an absent block inherits.

func inheritUpdate(parent, child *api.UpdateStrategy) *api.UpdateStrategy {
	return overlay(parent, child)
}

func inheritMigrate(parent, child *api.MigrateStrategy) *api.MigrateStrategy {
	return overlay(parent, child)
}

func inheritReschedule(parent, child *api.ReschedulePolicy) *api.ReschedulePolicy {
	return overlay(parent, child)
}

func inheritRestart(parent, child *api.RestartPolicy) *api.RestartPolicy {
	return overlay(parent, child)
}

// overlay returns a copy of child whose nil pointer fields are taken from
// parent. Neither argument is modified: both belong to the caller's request.
// T must be a struct whose fields are all pointers to immutable values.
func overlay[T any](parent, child *T) *T {
	if child == nil {
		return nil
	}
	out := *child
	if parent == nil {
		return &out
	}
	dst := reflect.ValueOf(&out).Elem()
	src := reflect.ValueOf(parent).Elem()
	for i := range dst.NumField() {
		f := dst.Field(i)
		if f.Kind() == reflect.Pointer && f.IsNil() {
			f.Set(src.Field(i))
		}
	}
	return &out
}
