package structs

// Defaults that Nomad's API client applies to blocks it finds present. The
// HTTP layer converts the api types without them (see internal/agent/apiconv),
// so Canonicalize applies them to the zero values that can only mean "unset":
// an empty operator, a zero affinity or spread weight (0 is invalid), an
// empty periodic spec type or restart mode.

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
		if a.Weight == 0 {
			a.Weight = DefaultAffinityWeight
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
