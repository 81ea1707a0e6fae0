package apiconv

import (
	"maps"
	"slices"

	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// taskToStructs converts a task of group g; a partial task restart block
// inherits the group's (see inherit.go).
func taskToStructs(g *api.TaskGroup, t *api.Task) *structs.Task {
	out := &structs.Task{
		Name:            t.Name,
		Driver:          t.Driver,
		User:            t.User,
		Config:          copyConfig(t.Config),
		Env:             maps.Clone(t.Env),
		Constraints:     constraintsToStructs(t.Constraints),
		Affinities:      affinitiesToStructs(t.Affinities),
		Resources:       resourcesToStructs(t.Resources),
		RestartPolicy:   restartToStructs(inheritRestart(g.RestartPolicy, t.RestartPolicy)),
		Lifecycle:       lifecycleToStructs(t.Lifecycle),
		Meta:            maps.Clone(t.Meta),
		KillTimeout:     deref(t.KillTimeout),
		KillSignal:      t.KillSignal,
		LogConfig:       logConfigToStructs(t.LogConfig),
		Artifacts:       convertPtrs(t.Artifacts, artifactToStructs),
		Templates:       convertPtrs(t.Templates, templateToStructs),
		Services:        servicesToStructs(t.Services),
		Leader:          t.Leader,
		ShutdownDelay:   t.ShutdownDelay,
		DispatchPayload: dispatchPayloadToStructs(t.DispatchPayload),
		VolumeMounts:    volumeMountsToStructs(t.VolumeMounts),
		Actions:         convertPtrs(t.Actions, actionToStructs),
	}
	identitiesToStructs(t, out)
	return out
}

func taskFromStructs(t *structs.Task) *api.Task {
	return &api.Task{
		Name:            t.Name,
		Driver:          t.Driver,
		User:            t.User,
		Config:          copyConfig(t.Config),
		Env:             maps.Clone(t.Env),
		Constraints:     constraintsFromStructs(t.Constraints),
		Affinities:      affinitiesFromStructs(t.Affinities),
		Resources:       resourcesFromStructs(t.Resources),
		RestartPolicy:   restartFromStructs(t.RestartPolicy),
		Lifecycle:       lifecycleFromStructs(t.Lifecycle),
		Meta:            maps.Clone(t.Meta),
		KillTimeout:     new(t.KillTimeout),
		KillSignal:      t.KillSignal,
		LogConfig:       logConfigFromStructs(t.LogConfig),
		Artifacts:       convertPtrs(t.Artifacts, artifactFromStructs),
		Templates:       convertPtrs(t.Templates, templateFromStructs),
		Services:        servicesFromStructs(t.Services),
		Leader:          t.Leader,
		ShutdownDelay:   t.ShutdownDelay,
		DispatchPayload: dispatchPayloadFromStructs(t.DispatchPayload),
		Identity:        identityFromStructs(t.Identity),
		Identities:      convertPtrs(t.Identities, identityFromStructs),
		VolumeMounts:    volumeMountsFromStructs(t.VolumeMounts),
		Actions:         convertPtrs(t.Actions, actionFromStructs),
	}
}

func actionToStructs(a *api.Action) *structs.Action {
	return &structs.Action{Name: a.Name, Command: a.Command, Args: slices.Clone(a.Args)}
}

func actionFromStructs(a *structs.Action) *api.Action {
	return &api.Action{Name: a.Name, Command: a.Command, Args: slices.Clone(a.Args)}
}

func lifecycleToStructs(l *api.TaskLifecycle) *structs.TaskLifecycleConfig {
	if l == nil {
		return nil
	}
	return &structs.TaskLifecycleConfig{Hook: l.Hook, Sidecar: l.Sidecar}
}

func lifecycleFromStructs(l *structs.TaskLifecycleConfig) *api.TaskLifecycle {
	if l == nil {
		return nil
	}
	return &api.TaskLifecycle{Hook: l.Hook, Sidecar: l.Sidecar}
}

// logConfigToStructs honours the deprecated `enabled` attribute that older
// job files still carry, when `disabled` is not given.
func logConfigToStructs(l *api.LogConfig) *structs.LogConfig {
	if l == nil {
		return nil
	}
	disabled := deref(l.Disabled)
	if l.Disabled == nil && l.Enabled != nil {
		disabled = !*l.Enabled
	}
	return &structs.LogConfig{MaxFiles: deref(l.MaxFiles), MaxFileSizeMB: deref(l.MaxFileSizeMB), Disabled: disabled}
}

func logConfigFromStructs(l *structs.LogConfig) *api.LogConfig {
	if l == nil {
		return nil
	}
	return &api.LogConfig{MaxFiles: new(l.MaxFiles), MaxFileSizeMB: new(l.MaxFileSizeMB), Disabled: new(l.Disabled)}
}

func artifactToStructs(a *api.TaskArtifact) *structs.TaskArtifact {
	return &structs.TaskArtifact{
		GetterSource:  deref(a.GetterSource),
		GetterOptions: maps.Clone(a.GetterOptions),
		GetterMode:    deref(a.GetterMode),
		RelativeDest:  deref(a.RelativeDest),
	}
}

func artifactFromStructs(a *structs.TaskArtifact) *api.TaskArtifact {
	return &api.TaskArtifact{
		GetterSource:  new(a.GetterSource),
		GetterOptions: maps.Clone(a.GetterOptions),
		GetterMode:    new(a.GetterMode),
		RelativeDest:  new(a.RelativeDest),
	}
}

func templateToStructs(t *api.Template) *structs.Template {
	return &structs.Template{
		SourcePath:    deref(t.SourcePath),
		DestPath:      deref(t.DestPath),
		EmbeddedTmpl:  deref(t.EmbeddedTmpl),
		ChangeMode:    deref(t.ChangeMode),
		ChangeSignal:  deref(t.ChangeSignal),
		Perms:         deref(t.Perms),
		Envvars:       deref(t.Envvars),
		Splay:         deref(t.Splay),
		Wait:          waitToStructs(t.Wait),
		ErrMissingKey: deref(t.ErrMissingKey),
		ChangeScript:  changeScriptToStructs(t.ChangeScript),
		LeftDelim:     deref(t.LeftDelim),
		RightDelim:    deref(t.RightDelim),
		Once:          deref(t.Once),
		Uid:           clonePtr(t.Uid),
		Gid:           clonePtr(t.Gid),
	}
}

func templateFromStructs(t *structs.Template) *api.Template {
	return &api.Template{
		SourcePath:    new(t.SourcePath),
		DestPath:      new(t.DestPath),
		EmbeddedTmpl:  new(t.EmbeddedTmpl),
		ChangeMode:    new(t.ChangeMode),
		ChangeSignal:  new(t.ChangeSignal),
		Perms:         new(t.Perms),
		Envvars:       new(t.Envvars),
		Splay:         new(t.Splay),
		Wait:          waitFromStructs(t.Wait),
		ErrMissingKey: new(t.ErrMissingKey),
		ChangeScript:  changeScriptFromStructs(t.ChangeScript),
		LeftDelim:     new(t.LeftDelim),
		RightDelim:    new(t.RightDelim),
		Once:          new(t.Once),
		Uid:           clonePtr(t.Uid),
		Gid:           clonePtr(t.Gid),
	}
}

func dispatchPayloadToStructs(d *api.DispatchPayloadConfig) *structs.DispatchPayloadConfig {
	if d == nil {
		return nil
	}
	return &structs.DispatchPayloadConfig{File: d.File}
}

func dispatchPayloadFromStructs(d *structs.DispatchPayloadConfig) *api.DispatchPayloadConfig {
	if d == nil {
		return nil
	}
	return &api.DispatchPayloadConfig{File: d.File}
}
