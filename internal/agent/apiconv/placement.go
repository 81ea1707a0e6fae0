package apiconv

import (
	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// Placement rules: constraints, affinities and spreads, which appear on
// jobs, groups and tasks alike.

func constraintsToStructs(in []*api.Constraint) []*structs.Constraint {
	return convertPtrs(in, func(c *api.Constraint) *structs.Constraint {
		return &structs.Constraint{LTarget: c.LTarget, RTarget: c.RTarget, Operand: c.Operand}
	})
}

func constraintsFromStructs(in []*structs.Constraint) []*api.Constraint {
	return convertPtrs(in, func(c *structs.Constraint) *api.Constraint {
		return &api.Constraint{LTarget: c.LTarget, RTarget: c.RTarget, Operand: c.Operand}
	})
}

// affinitiesToStructs applies Nomad's default weight (50) to an absent
// one here, where absence is still visible: an explicit 0 is kept, and
// refused by validation as Nomad refuses it.
func affinitiesToStructs(in []*api.Affinity) []*structs.Affinity {
	return convertPtrs(in, func(a *api.Affinity) *structs.Affinity {
		return &structs.Affinity{LTarget: a.LTarget, RTarget: a.RTarget, Operand: a.Operand,
			Weight: derefOr(a.Weight, int8(structs.DefaultAffinityWeight))}
	})
}

func affinitiesFromStructs(in []*structs.Affinity) []*api.Affinity {
	return convertPtrs(in, func(a *structs.Affinity) *api.Affinity {
		return &api.Affinity{LTarget: a.LTarget, RTarget: a.RTarget, Operand: a.Operand, Weight: new(a.Weight)}
	})
}

func spreadsToStructs(in []*api.Spread) []*structs.Spread {
	return convertPtrs(in, func(s *api.Spread) *structs.Spread {
		return &structs.Spread{
			Attribute: s.Attribute,
			Weight:    deref(s.Weight),
			SpreadTarget: convertPtrs(s.SpreadTarget, func(t *api.SpreadTarget) *structs.SpreadTarget {
				return &structs.SpreadTarget{Value: t.Value, Percent: t.Percent}
			}),
		}
	})
}

func spreadsFromStructs(in []*structs.Spread) []*api.Spread {
	return convertPtrs(in, func(s *structs.Spread) *api.Spread {
		return &api.Spread{
			Attribute: s.Attribute,
			Weight:    new(s.Weight),
			SpreadTarget: convertPtrs(s.SpreadTarget, func(t *structs.SpreadTarget) *api.SpreadTarget {
				return &api.SpreadTarget{Value: t.Value, Percent: t.Percent}
			}),
		}
	})
}
