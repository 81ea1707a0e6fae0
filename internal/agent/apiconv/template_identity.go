package apiconv

import (
	"slices"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
)

// identityToStructs converts an identity block: the default one's
// exposure and rotation, a named one's audience too.
func identityToStructs(w *api.WorkloadIdentity) *structs.WorkloadIdentity {
	if w == nil {
		return nil
	}
	return &structs.WorkloadIdentity{Env: w.Env, File: w.File, Name: w.Name, Audience: slices.Clone(w.Audience),
		ChangeMode: w.ChangeMode, ChangeSignal: w.ChangeSignal, Filepath: w.Filepath, TTL: w.TTL}
}

func identityFromStructs(w *structs.WorkloadIdentity) *api.WorkloadIdentity {
	if w == nil {
		return nil
	}
	return &api.WorkloadIdentity{Env: w.Env, File: w.File, Name: w.Name, Audience: slices.Clone(w.Audience),
		ChangeMode: w.ChangeMode, ChangeSignal: w.ChangeSignal, Filepath: w.Filepath, TTL: w.TTL}
}

// identitiesToStructs sets the task's default identity and named ones.
// Nomad's API lets the default identity come in Identities (named
// "default" or unnamed) as well as in Identity: one there while Identity
// is unset becomes Identity; a second default stays in Identities, where
// validation refuses it by name.
func identitiesToStructs(t *api.Task, out *structs.Task) {
	out.Identity = identityToStructs(t.Identity)
	for _, w := range t.Identities {
		if w == nil {
			continue
		}
		sw := identityToStructs(w)
		if out.Identity == nil && sw.IsDefault() {
			out.Identity = sw
			continue
		}
		out.Identities = append(out.Identities, sw)
	}
}

func waitToStructs(w *api.WaitConfig) *structs.TemplateWait {
	if w == nil {
		return nil
	}
	return &structs.TemplateWait{Min: deref(w.Min), Max: deref(w.Max)}
}

func waitFromStructs(w *structs.TemplateWait) *api.WaitConfig {
	if w == nil {
		return nil
	}
	return &api.WaitConfig{Min: new(w.Min), Max: new(w.Max)}
}

func changeScriptToStructs(c *api.ChangeScript) *structs.ChangeScript {
	if c == nil {
		return nil
	}
	return &structs.ChangeScript{Command: deref(c.Command), Args: slices.Clone(c.Args), Timeout: deref(c.Timeout), FailOnError: deref(c.FailOnError)}
}

func changeScriptFromStructs(c *structs.ChangeScript) *api.ChangeScript {
	if c == nil {
		return nil
	}
	return &api.ChangeScript{Command: new(c.Command), Args: slices.Clone(c.Args), Timeout: new(c.Timeout), FailOnError: new(c.FailOnError)}
}
