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
	return &api.UpdateStrategy{
		Stagger:          new(u.Stagger),
		MaxParallel:      new(u.MaxParallel),
		HealthCheck:      new(u.HealthCheck),
		MinHealthyTime:   new(u.MinHealthyTime),
		HealthyDeadline:  new(u.HealthyDeadline),
		ProgressDeadline: new(u.ProgressDeadline),
		Canary:           new(u.Canary),
		AutoRevert:       new(u.AutoRevert),
		AutoPromote:      new(u.AutoPromote),
	}
}

func updatePtrFromStructs(u *structs.UpdateStrategy) *api.UpdateStrategy {
	if u == nil {
		return nil
	}
	return updateFromStructs(*u)
}

func migrateToStructs(m *api.MigrateStrategy) *structs.MigrateStrategy {
	if m == nil {
		return nil
	}
	return &structs.MigrateStrategy{
		MaxParallel:     deref(m.MaxParallel),
		HealthCheck:     deref(m.HealthCheck),
		MinHealthyTime:  deref(m.MinHealthyTime),
		HealthyDeadline: deref(m.HealthyDeadline),
	}
}

func migrateFromStructs(m *structs.MigrateStrategy) *api.MigrateStrategy {
	if m == nil {
		return nil
	}
	return &api.MigrateStrategy{
		MaxParallel:     new(m.MaxParallel),
		HealthCheck:     new(m.HealthCheck),
		MinHealthyTime:  new(m.MinHealthyTime),
		HealthyDeadline: new(m.HealthyDeadline),
	}
}

func rescheduleToStructs(r *api.ReschedulePolicy) *structs.ReschedulePolicy {
	if r == nil {
		return nil
	}
	return &structs.ReschedulePolicy{
		Attempts:      deref(r.Attempts),
		Interval:      deref(r.Interval),
		Delay:         deref(r.Delay),
		DelayFunction: deref(r.DelayFunction),
		MaxDelay:      deref(r.MaxDelay),
		Unlimited:     deref(r.Unlimited),
	}
}

func rescheduleFromStructs(r *structs.ReschedulePolicy) *api.ReschedulePolicy {
	if r == nil {
		return nil
	}
	return &api.ReschedulePolicy{
		Attempts:      new(r.Attempts),
		Interval:      new(r.Interval),
		Delay:         new(r.Delay),
		DelayFunction: new(r.DelayFunction),
		MaxDelay:      new(r.MaxDelay),
		Unlimited:     new(r.Unlimited),
	}
}

func restartToStructs(r *api.RestartPolicy) *structs.RestartPolicy {
	if r == nil {
		return nil
	}
	return &structs.RestartPolicy{
		Attempts:        deref(r.Attempts),
		Interval:        deref(r.Interval),
		Delay:           deref(r.Delay),
		Mode:            deref(r.Mode),
		RenderTemplates: deref(r.RenderTemplates),
	}
}

func restartFromStructs(r *structs.RestartPolicy) *api.RestartPolicy {
	if r == nil {
		return nil
	}
	return &api.RestartPolicy{
		Attempts:        new(r.Attempts),
		Interval:        new(r.Interval),
		Delay:           new(r.Delay),
		Mode:            new(r.Mode),
		RenderTemplates: new(r.RenderTemplates),
	}
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
