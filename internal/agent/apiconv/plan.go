package apiconv

import (
	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// PlanAnnotationsFromStructs converts the scheduler's explanation of a plan
// for `job plan`. Preempted allocs are listed as stubs, as Nomad does.
func PlanAnnotationsFromStructs(p *structs.PlanAnnotations) *api.PlanAnnotations {
	if p == nil {
		return nil
	}
	return &api.PlanAnnotations{
		DesiredTGUpdates: convertMap(p.DesiredTGUpdates, desiredUpdatesFromStructs),
		PreemptedAllocs: convertPtrs(p.PreemptedAllocs, func(a *structs.Allocation) *api.AllocationListStub {
			return AllocStubFromStructs(a, false)
		}),
	}
}

func desiredUpdatesFromStructs(u *structs.DesiredUpdates) *api.DesiredUpdates {
	return &api.DesiredUpdates{
		Ignore:            u.Ignore,
		Place:             u.Place,
		Migrate:           u.Migrate,
		Stop:              u.Stop,
		InPlaceUpdate:     u.InPlaceUpdate,
		DestructiveUpdate: u.DestructiveUpdate,
		Canary:            u.Canary,
		Preemptions:       u.Preemptions,
	}
}
