package apiconv

import (
	"slices"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
)

// identityToStructs keeps the default identity's exposure; audience, TTL
// and change mode are not configurable in Drover.
func identityToStructs(w *api.WorkloadIdentity) *structs.WorkloadIdentity {
	if w == nil {
		return nil
	}
	return &structs.WorkloadIdentity{Env: w.Env, File: w.File}
}

func identityFromStructs(w *structs.WorkloadIdentity) *api.WorkloadIdentity {
	if w == nil {
		return nil
	}
	return &api.WorkloadIdentity{Env: w.Env, File: w.File}
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
