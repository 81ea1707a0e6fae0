package apiconv

//lint:file-ignore SA1019 job files and API clients still send Nomad's deprecated disconnect fields; we accept them

import (
	"maps"
	"slices"

	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// groupToStructs converts a task group. job is the api job it belongs to,
// from which partial policy blocks inherit (see inherit.go).
func groupToStructs(job *api.Job, g *api.TaskGroup) *structs.TaskGroup {
	count := groupCount(g)
	tg := &structs.TaskGroup{
		Name:                      deref(g.Name),
		Count:                     count,
		Update:                    updatePtrToStructs(inheritUpdate(job.Update, g.Update)),
		Migrate:                   migrateToStructs(inheritMigrate(job.Migrate, g.Migrate)),
		Constraints:               constraintsToStructs(g.Constraints),
		Affinities:                affinitiesToStructs(g.Affinities),
		Spreads:                   spreadsToStructs(g.Spreads),
		Scaling:                   scalingToStructs(g.Scaling, count),
		RestartPolicy:             restartToStructs(g.RestartPolicy),
		ReschedulePolicy:          rescheduleToStructs(inheritReschedule(job.Reschedule, g.ReschedulePolicy)),
		Disconnect:                disconnectToStructs(g.Disconnect),
		EphemeralDisk:             ephemeralDiskToStructs(g.EphemeralDisk),
		Networks:                  networksToStructs(g.Networks),
		Services:                  servicesToStructs(g.Services),
		Volumes:                   volumesToStructs(g.Volumes),
		Meta:                      maps.Clone(g.Meta),
		StopAfterClientDisconnect: clonePtr(g.StopAfterClientDisconnect),
		MaxClientDisconnect:       clonePtr(g.MaxClientDisconnect),
		ShutdownDelay:             clonePtr(g.ShutdownDelay),
		MaxRunDuration:            clonePtr(g.MaxRunDuration),
		PreventRescheduleOnLost:   g.PreventRescheduleOnLost != nil && *g.PreventRescheduleOnLost,
	}
	tg.Tasks = convertPtrs(g.Tasks, func(t *api.Task) *structs.Task { return taskToStructs(g, t) })
	return tg
}

// groupCount applies Nomad's presence default for count: the scaling
// minimum if there is one, else 1. It cannot wait for Canonicalize because
// count = 0 is a legal explicit value (a scaled-down group).
func groupCount(g *api.TaskGroup) int {
	if g.Count != nil {
		return *g.Count
	}
	if g.Scaling != nil && g.Scaling.Min != nil {
		return int(*g.Scaling.Min)
	}
	return 1
}

func groupFromStructs(tg *structs.TaskGroup) *api.TaskGroup {
	return &api.TaskGroup{
		Name:                      new(tg.Name),
		Count:                     new(tg.Count),
		Update:                    updatePtrFromStructs(tg.Update),
		Migrate:                   migrateFromStructs(tg.Migrate),
		Constraints:               constraintsFromStructs(tg.Constraints),
		Affinities:                affinitiesFromStructs(tg.Affinities),
		Spreads:                   spreadsFromStructs(tg.Spreads),
		Scaling:                   scalingFromStructs(tg.Scaling),
		RestartPolicy:             restartFromStructs(tg.RestartPolicy),
		ReschedulePolicy:          rescheduleFromStructs(tg.ReschedulePolicy),
		Disconnect:                disconnectFromStructs(tg.Disconnect),
		EphemeralDisk:             ephemeralDiskFromStructs(tg.EphemeralDisk),
		Networks:                  networksFromStructs(tg.Networks),
		Services:                  servicesFromStructs(tg.Services),
		Volumes:                   volumesFromStructs(tg.Volumes),
		Tasks:                     convertPtrs(tg.Tasks, taskFromStructs),
		Meta:                      maps.Clone(tg.Meta),
		StopAfterClientDisconnect: clonePtr(tg.StopAfterClientDisconnect),
		MaxClientDisconnect:       clonePtr(tg.MaxClientDisconnect),
		ShutdownDelay:             clonePtr(tg.ShutdownDelay),
		MaxRunDuration:            clonePtr(tg.MaxRunDuration),
		PreventRescheduleOnLost:   new(tg.PreventRescheduleOnLost),
	}
}

// clonePtr copies an optional value so the result shares nothing with the
// request (stored objects are immutable; requests are not).
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	return new(*p)
}

// scalingToStructs applies Nomad's presence defaults for a scaling block:
// enabled, and min = the group's count. As with count, false and 0 are legal
// explicit values, so Canonicalize could not apply them later.
func scalingToStructs(s *api.ScalingPolicy, count int) *structs.ScalingPolicy {
	if s == nil {
		return nil
	}
	return &structs.ScalingPolicy{
		Min:     derefOr(s.Min, int64(count)),
		Max:     deref(s.Max),
		Enabled: derefOr(s.Enabled, true),
		Policy:  copyConfig(s.Policy),
	}
}

// scalingFromStructs leaves out the server-side fields (ID, Type, Target):
// structs stores the group policy inline rather than as its own object.
func scalingFromStructs(s *structs.ScalingPolicy) *api.ScalingPolicy {
	if s == nil {
		return nil
	}
	out := byName[api.ScalingPolicy](s)
	out.Policy = copyConfig(s.Policy)
	return out
}

func disconnectToStructs(d *api.DisconnectStrategy) *structs.DisconnectStrategy {
	return byName[structs.DisconnectStrategy](d)
}

func disconnectFromStructs(d *structs.DisconnectStrategy) *api.DisconnectStrategy {
	return byName[api.DisconnectStrategy](d)
}

func ephemeralDiskToStructs(e *api.EphemeralDisk) *structs.EphemeralDisk {
	return byName[structs.EphemeralDisk](e)
}

func ephemeralDiskFromStructs(e *structs.EphemeralDisk) *api.EphemeralDisk {
	return byName[api.EphemeralDisk](e)
}

// servicesToStructs keeps what the native catalog and the checks act on;
// the Consul-only parts (connect, identity, weights, cluster, kind) are
// left for the refusal rules. A check's empty on_update inherits the
// service's, as in Nomad.
func servicesToStructs(in []*api.Service) []*structs.Service {
	return convertPtrs(in, func(s *api.Service) *structs.Service {
		return &structs.Service{
			Name:      s.Name,
			PortLabel: s.PortLabel,
			Provider:  s.Provider,
			Address:   s.Address,
			Tags:      slices.Clone(s.Tags),
			Checks:    checksToStructs(s.Checks, s.CheckRestart, s.OnUpdate),

			CanaryTags: slices.Clone(s.CanaryTags), CanaryMeta: maps.Clone(s.CanaryMeta), Meta: maps.Clone(s.Meta),
			TaggedAddresses: maps.Clone(s.TaggedAddresses), AddressMode: s.AddressMode,
			EnableTagOverride: s.EnableTagOverride, OnUpdate: s.OnUpdate,
		}
	})
}

func servicesFromStructs(in []*structs.Service) []*api.Service {
	return convertPtrs(in, func(s *structs.Service) *api.Service {
		return &api.Service{
			Name:      s.Name,
			PortLabel: s.PortLabel,
			Provider:  s.Provider,
			Address:   s.Address,
			Tags:      slices.Clone(s.Tags),
			Checks:    checksFromStructs(s.Checks),

			CanaryTags: slices.Clone(s.CanaryTags), CanaryMeta: maps.Clone(s.CanaryMeta), Meta: maps.Clone(s.Meta),
			TaggedAddresses: maps.Clone(s.TaggedAddresses), AddressMode: s.AddressMode,
			EnableTagOverride: s.EnableTagOverride, OnUpdate: s.OnUpdate,
		}
	})
}

// checksToStructs converts a service's checks; the service's
// check_restart applies to each check, its fields overridden by the
// check's own.
func checksToStructs(in []api.ServiceCheck, serviceRestart *api.CheckRestart, serviceOnUpdate string) []*structs.ServiceCheck {
	return convertSlice(in, func(c api.ServiceCheck) *structs.ServiceCheck {
		onUpdate := c.OnUpdate
		if onUpdate == "" {
			onUpdate = serviceOnUpdate
		}
		return &structs.ServiceCheck{
			Header: cloneHeader(c.Header), Body: c.Body, TLSServerName: c.TLSServerName,
			SuccessBeforePassing: c.SuccessBeforePassing, FailuresBeforeWarning: c.FailuresBeforeWarning,
			FailuresBeforeCritical: c.FailuresBeforeCritical, OnUpdate: onUpdate, InitialStatus: c.InitialStatus,
			Name: c.Name, Type: c.Type, Path: c.Path, Protocol: c.Protocol, PortLabel: c.PortLabel, Method: c.Method,
			Interval: c.Interval, Timeout: c.Timeout, Command: c.Command, Args: slices.Clone(c.Args),
			GRPCService: c.GRPCService, GRPCUseTLS: c.GRPCUseTLS, TLSSkipVerify: c.TLSSkipVerify, TaskName: c.TaskName,
			CheckRestart: checkRestartToStructs(serviceRestart.Merge(c.CheckRestart)),
		}
	})
}

func checkRestartToStructs(c *api.CheckRestart) *structs.CheckRestart {
	if c == nil {
		return nil
	}
	out := &structs.CheckRestart{Limit: c.Limit, IgnoreWarnings: c.IgnoreWarnings}
	if c.Grace != nil {
		out.Grace = *c.Grace
	}
	return out
}

func checkRestartFromStructs(c *structs.CheckRestart) *api.CheckRestart {
	if c == nil {
		return nil
	}
	return &api.CheckRestart{Limit: c.Limit, Grace: new(c.Grace), IgnoreWarnings: c.IgnoreWarnings}
}

// checksFromStructs drops nil checks: api.Service holds checks by value.
func checksFromStructs(in []*structs.ServiceCheck) []api.ServiceCheck {
	if in == nil {
		return nil
	}
	out := make([]api.ServiceCheck, 0, len(in))
	for _, c := range in {
		if c != nil {
			out = append(out, api.ServiceCheck{
				Name: c.Name, Type: c.Type, Path: c.Path, Protocol: c.Protocol, PortLabel: c.PortLabel, Method: c.Method,
				Interval: c.Interval, Timeout: c.Timeout, Command: c.Command, Args: slices.Clone(c.Args),
				GRPCService: c.GRPCService, GRPCUseTLS: c.GRPCUseTLS, TLSSkipVerify: c.TLSSkipVerify, TaskName: c.TaskName,
				CheckRestart: checkRestartFromStructs(c.CheckRestart),
				Header:       cloneHeader(c.Header), Body: c.Body, TLSServerName: c.TLSServerName,
				SuccessBeforePassing: c.SuccessBeforePassing, FailuresBeforeWarning: c.FailuresBeforeWarning,
				FailuresBeforeCritical: c.FailuresBeforeCritical, OnUpdate: c.OnUpdate, InitialStatus: c.InitialStatus,
			})
		}
	}
	return out
}

// cloneHeader deep-copies a check's header block.
func cloneHeader(h map[string][]string) map[string][]string {
	if h == nil {
		return nil
	}
	out := make(map[string][]string, len(h))
	for k, v := range h {
		out[k] = slices.Clone(v)
	}
	return out
}
