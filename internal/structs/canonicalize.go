package structs

// Defaults that Nomad's API client applies to blocks it finds present. The
// HTTP layer converts the api types without them (see internal/agent/apiconv),
// so Canonicalize applies them to the zero values that can only mean "unset":
// an empty operator, a zero spread weight, an empty periodic spec type or
// restart mode. An affinity weight of 0 is not defaulted here: Nomad refuses
// an explicit 0, so apiconv applies DefaultAffinityWeight where the api
// weight is absent and Validate refuses the 0 that is left.

// Weights given to affinities and spreads that leave theirs out.
const (
	DefaultAffinityWeight = 50
	DefaultSpreadWeight   = 50
)

func canonicalizePlacement(cs []*Constraint, as []*Affinity, ss []*Spread) {
	for _, c := range cs {
		if c != nil && c.Operand == "" {
			c.Operand = ConstraintEqual
		}
	}
	for _, a := range as {
		if a == nil {
			continue
		}
		if a.Operand == "" {
			a.Operand = ConstraintEqual
		}
	}
	for _, s := range ss {
		if s != nil && s.Weight == 0 {
			s.Weight = DefaultSpreadWeight
		}
	}
}

func (p *PeriodicConfig) canonicalize() {
	if p != nil && p.SpecType == "" {
		p.SpecType = PeriodicSpecCron
	}
}

func (r *RestartPolicy) canonicalize() {
	if r != nil && r.Mode == "" {
		r.Mode = RestartPolicyModeFail
	}
}
