package scheduler

import (
	"strconv"
	"strings"

	"github.com/drover-project/drover/internal/structs"
)

// resolveTarget interpolates a constraint target against a node. Targets
// that are not "${...}" are literals. ok is false when the node lacks the
// attribute, which matters to is_set / is_not_set and to every operator
// that needs a value.
func resolveTarget(target string, n *structs.Node) (string, bool) {
	if !strings.HasPrefix(target, "${") || !strings.HasSuffix(target, "}") {
		return target, true
	}
	return n.LookupVariable(target[2 : len(target)-1])
}

// escapesClass reports whether a target reads a value unique to each node,
// so a result for one node says nothing about others of its class.
func escapesClass(target string) bool {
	return strings.Contains(target, "unique.")
}

// constraintString is how a constraint is named in alloc metrics.
func constraintString(c *structs.Constraint) string {
	return strings.TrimSpace(c.LTarget + " " + c.Operand + " " + c.RTarget)
}

// checkConstraint evaluates one node-local constraint operator. The
// placement-dependent operators (distinct_hosts, distinct_property) are
// checked elsewhere and always pass here.
func (c *evalContext) checkConstraint(con *structs.Constraint, n *structs.Node) bool {
	l, lok := resolveTarget(con.LTarget, n)
	r, rok := resolveTarget(con.RTarget, n)
	return c.checkOperator(con.Operand, l, lok, r, rok)
}

func (c *evalContext) checkOperator(op, l string, lok bool, r string, rok bool) bool {
	switch op {
	case structs.ConstraintDistinctHosts, structs.ConstraintDistinctProperty:
		return true
	case structs.ConstraintAttributeIsSet:
		return lok
	case structs.ConstraintAttributeIsUnset:
		return !lok
	case structs.ConstraintNotEqual, "not":
		return !(lok == rok && l == r)
	}
	if !lok || !rok {
		return false
	}
	switch op {
	case structs.ConstraintEqual, "==", "is":
		return l == r
	case structs.ConstraintLess, structs.ConstraintLessEqual, structs.ConstraintGreater, structs.ConstraintGreaterEqual:
		return checkOrder(op, l, r)
	case structs.ConstraintRegex:
		re := c.regexp(r)
		return re != nil && re.MatchString(l)
	case structs.ConstraintSetContains, structs.ConstraintSetContainsAll:
		return setContains(l, r, true)
	case structs.ConstraintSetContainsAny:
		return setContains(l, r, false)
	case structs.ConstraintVersion, structs.ConstraintSemver:
		return c.checkVersion(op == structs.ConstraintSemver, l, r)
	}
	return false
}

// checkOrder compares numerically when both sides are numbers, else as
// strings.
func checkOrder(op, l, r string) bool {
	var cmp int
	lf, lerr := strconv.ParseFloat(l, 64)
	rf, rerr := strconv.ParseFloat(r, 64)
	if lerr == nil && rerr == nil {
		switch {
		case lf < rf:
			cmp = -1
		case lf > rf:
			cmp = 1
		}
	} else {
		cmp = strings.Compare(l, r)
	}
	switch op {
	case structs.ConstraintLess:
		return cmp < 0
	case structs.ConstraintLessEqual:
		return cmp <= 0
	case structs.ConstraintGreater:
		return cmp > 0
	}
	return cmp >= 0
}

// setContains checks the comma-separated set l against the values in r:
// all of them (set_contains, set_contains_all) or any (set_contains_any).
func setContains(l, r string, all bool) bool {
	have := map[string]bool{}
	for _, v := range strings.Split(l, ",") {
		have[strings.TrimSpace(v)] = true
	}
	for _, v := range strings.Split(r, ",") {
		found := have[strings.TrimSpace(v)]
		if all && !found {
			return false
		}
		if !all && found {
			return true
		}
	}
	return all
}

func (c *evalContext) checkVersion(strict bool, l, r string) bool {
	v, ok := parseVersion(l)
	if !ok {
		return false
	}
	if strict && len(v.segments) != 3 {
		return false // semver needs major.minor.patch
	}
	vc := c.versionConstraint(r, strict)
	return vc != nil && vc.check(v)
}
