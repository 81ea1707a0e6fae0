package apiconv

import (
	"slices"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// This file holds the policy blocks shared by jobs and groups: update,
// migrate, reschedule and restart. Outbound, every pointer is set so the
// output reads like a canonicalized Nomad job.

// Nomad's defaults for the fields an update block leaves out. They are
// applied here, where "left out" (a nil pointer) can still be told from an
// explicit zero (max_parallel = 0 disables rolling updates).
var defaultUpdate = structs.UpdateStrategy{
	Stagger: 30 * time.Second, MaxParallel: 1, HealthCheck: "checks",
	MinHealthyTime: 10 * time.Second, HealthyDeadline: 5 * time.Minute, ProgressDeadline: 10 * time.Minute,
}

// updateToStructs converts an update block; an absent block is the zero
// strategy (no rolling updates), a present one gets Nomad's defaults.
func updateToStructs(u *api.UpdateStrategy) structs.UpdateStrategy {
	if u == nil {
		return structs.UpdateStrategy{}
	}
	d := defaultUpdate
	return structs.UpdateStrategy{
		Stagger:          derefOr(u.Stagger, d.Stagger),
		MaxParallel:      derefOr(u.MaxParallel, d.MaxParallel),
		HealthCheck:      derefOr(u.HealthCheck, d.HealthCheck),
		MinHealthyTime:   derefOr(u.MinHealthyTime, d.MinHealthyTime),
		HealthyDeadline:  derefOr(u.HealthyDeadline, d.HealthyDeadline),
		ProgressDeadline: derefOr(u.ProgressDeadline, d.ProgressDeadline),
		Canary:           deref(u.Canary),
		AutoRevert:       deref(u.AutoRevert),
		AutoPromote:      deref(u.AutoPromote),
	}
}

// jobUpdateToStructs is a job's update block. A service job without one
// gets Nomad's default strategy, as the official client's Canonicalize
// gives it, so its updates roll out as deployments.
func jobUpdateToStructs(j *api.Job) structs.UpdateStrategy {
	if j.Update == nil && (j.Type == nil || *j.Type == "" || *j.Type == structs.JobTypeService) {
		return defaultUpdate
	}
	return updateToStructs(j.Update)
}

// updatePtrToStructs is for groups, whose update block is optional.
func updatePtrToStructs(u *api.UpdateStrategy) *structs.UpdateStrategy {
	if u == nil {
		return nil
	}
	s := updateToStructs(u)
	return &s
}

func updateFromStructs(u structs.UpdateStrategy) *api.UpdateStrategy {
	return byName[api.UpdateStrategy](&u)
}

func updatePtrFromStructs(u *structs.UpdateStrategy) *api.UpdateStrategy {
	if u == nil {
		return nil
	}
	return updateFromStructs(*u)
}

// The migrate, reschedule and restart blocks mirror structs field for
// field, each field an optional pointer.

func migrateToStructs(m *api.MigrateStrategy) *structs.MigrateStrategy {
	return byName[structs.MigrateStrategy](m)
}

func migrateFromStructs(m *structs.MigrateStrategy) *api.MigrateStrategy {
	return byName[api.MigrateStrategy](m)
}

func rescheduleToStructs(r *api.ReschedulePolicy) *structs.ReschedulePolicy {
	return byName[structs.ReschedulePolicy](r)
}

func rescheduleFromStructs(r *structs.ReschedulePolicy) *api.ReschedulePolicy {
	return byName[api.ReschedulePolicy](r)
}

func restartToStructs(r *api.RestartPolicy) *structs.RestartPolicy {
	return byName[structs.RestartPolicy](r)
}

func restartFromStructs(r *structs.RestartPolicy) *api.RestartPolicy {
	return byName[api.RestartPolicy](r)
}

// periodicToStructs folds the api's single Spec (the `cron` attribute) and
// Specs (`crons`) into structs' one list; Nomad rejects jobs that set both,
// so the order only matters for invalid input, which validation reports.
//
// A present periodic block without `enabled` is enabled (Nomad's default).
// It is applied here because false is also a legal explicit value, so
// structs.Canonicalize could not tell "unset" from "disabled".
func periodicToStructs(p *api.PeriodicConfig) *structs.PeriodicConfig {
	if p == nil {
		return nil
	}
	specs := slices.Clone(p.Specs)
	if spec := deref(p.Spec); spec != "" {
		specs = append([]string{spec}, specs...)
	}
	return &structs.PeriodicConfig{
		Enabled:         derefOr(p.Enabled, true),
		Specs:           specs,
		SpecType:        deref(p.SpecType),
		ProhibitOverlap: deref(p.ProhibitOverlap),
		TimeZone:        deref(p.TimeZone),
	}
}

// periodicFromStructs writes a single spec to Spec, which every version of
// the nomad CLI reads, and several to Specs; that choice is what makes
// periodicToStructs its exact inverse.
func periodicFromStructs(p *structs.PeriodicConfig) *api.PeriodicConfig {
	if p == nil {
		return nil
	}
	out := &api.PeriodicConfig{
		Enabled:         new(p.Enabled),
		SpecType:        new(p.SpecType),
		ProhibitOverlap: new(p.ProhibitOverlap),
		TimeZone:        new(p.TimeZone),
	}
	if len(p.Specs) == 1 {
		out.Spec = new(p.Specs[0])
	} else {
		out.Spec = new("")
		out.Specs = slices.Clone(p.Specs)
	}
	return out
}

func parameterizedToStructs(p *api.ParameterizedJobConfig) *structs.ParameterizedJobConfig {
	if p == nil {
		return nil
	}
	return &structs.ParameterizedJobConfig{
		Payload:      p.Payload,
		MetaRequired: slices.Clone(p.MetaRequired),
		MetaOptional: slices.Clone(p.MetaOptional),
	}
}

func parameterizedFromStructs(p *structs.ParameterizedJobConfig) *api.ParameterizedJobConfig {
	if p == nil {
		return nil
	}
	return &api.ParameterizedJobConfig{
		Payload:      p.Payload,
		MetaRequired: slices.Clone(p.MetaRequired),
		MetaOptional: slices.Clone(p.MetaOptional),
	}
}
