package jobspec

import (
	"github.com/hashicorp/nomad/api"
)

// shorthands are the attributes that name the operator themselves:
// `version = ">= 1.2"` means operator "version", value ">= 1.2".
var shorthands = []string{"regexp", "set_contains", "set_contains_any", "set_contains_all", "version", "semver"}

var constraintSchema = schema(append([]string{"attribute", "operator", "value",
	"distinct_hosts", "distinct_property"}, shorthands...))

var affinitySchema = schema(append([]string{"attribute", "operator", "value", "weight"}, shorthands...))

// constraints decodes every constraint block of b.
func (b *block) constraints() []*api.Constraint {
	var out []*api.Constraint
	for _, hb := range b.all("constraint") {
		if c := b.d.constraint(b.d.openBlock(hb, constraintSchema)); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// constraint returns nil for `distinct_hosts = false`, which Nomad treats
// as no constraint at all. An operator-less constraint means "=", as Nomad's
// parser writes it.
func (d *decoder) constraint(b *block) *api.Constraint {
	c := &api.Constraint{}
	b.str("attribute", &c.LTarget)
	b.str("value", &c.RTarget)
	b.str("operator", &c.Operand)
	b.shorthand(&c.Operand, &c.RTarget)
	if b.has("distinct_hosts") {
		var on bool
		b.boolean("distinct_hosts", &on)
		if !on {
			return nil
		}
		c.Operand = api.ConstraintDistinctHosts
	}
	if b.has("distinct_property") {
		c.Operand = api.ConstraintDistinctProperty
		b.str("distinct_property", &c.LTarget)
	}
	if c.Operand == "" {
		c.Operand = "="
	}
	return c
}

// shorthand applies the operator-naming attributes.
func (b *block) shorthand(operand, value *string) {
	for _, op := range shorthands {
		if b.has(op) {
			*operand = op
			b.str(op, value)
		}
	}
}

// affinities decodes every affinity block of b.
func (b *block) affinities() []*api.Affinity {
	var out []*api.Affinity
	for _, hb := range b.all("affinity") {
		ab := b.d.openBlock(hb, affinitySchema)
		a := &api.Affinity{}
		ab.str("attribute", &a.LTarget)
		ab.str("value", &a.RTarget)
		ab.str("operator", &a.Operand)
		ab.shorthand(&a.Operand, &a.RTarget)
		ab.int8Ptr("weight", &a.Weight)
		if a.Operand == "" {
			a.Operand = "="
		}
		out = append(out, a)
	}
	return out
}

var spreadSchema = schema([]string{"attribute", "weight"}, "target:value")
var spreadTargetSchema = schema([]string{"percent"})

// spreads decodes every spread block of b with its labelled targets.
func (b *block) spreads() []*api.Spread {
	var out []*api.Spread
	for _, hb := range b.all("spread") {
		sb := b.d.openBlock(hb, spreadSchema)
		s := &api.Spread{}
		sb.str("attribute", &s.Attribute)
		sb.int8Ptr("weight", &s.Weight)
		for _, tb := range sb.all("target") {
			t := &api.SpreadTarget{Value: tb.Labels[0]}
			b.d.openBlock(tb, spreadTargetSchema).uint8Val("percent", &t.Percent)
			s.SpreadTarget = append(s.SpreadTarget, t)
		}
		out = append(out, s)
	}
	return out
}

// placement is what a job and a group both declare, in this order: their
// metadata and where to run (constraints, affinities, spreads).
type placement struct {
	meta        map[string]string
	constraints []*api.Constraint
	affinities  []*api.Affinity
	spreads     []*api.Spread
}

func (b *block) placement() placement {
	// A composite literal's calls run left to right: diagnostics keep
	// the file's order.
	return placement{b.meta("meta"), b.constraints(), b.affinities(), b.spreads()}
}
