package authmethod

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/go-bexpr"

	"github.com/drover-project/drover/internal/structs"
)

// Bindings are what a login's matching binding rules grant.
type Bindings struct {
	Management bool
	Roles      []string // role names
	Policies   []string // policy names
}

// None reports whether nothing was bound.
func (b *Bindings) None() bool { return !b.Management && len(b.Roles) == 0 && len(b.Policies) == 0 }

func newSelector(expr string) (*bexpr.Evaluator, error) {
	return bexpr.CreateEvaluator(expr)
}

// Bind evaluates rules over the claims: each rule whose selector matches
// (an empty selector matches every login) binds its interpolated name.
// A rule whose selector names a claim the token lacks, or whose name
// uses one, does not match.
func Bind(rules []*structs.ACLBindingRule, claims *Claims) *Bindings {
	out := &Bindings{}
	vars := map[string]string{}
	for k, v := range claims.Value {
		vars["value."+k] = v
	}
	for _, r := range rules {
		if r.Selector != "" {
			ev, err := newSelector(r.Selector)
			if err != nil {
				continue
			}
			if ok, err := ev.Evaluate(claims); err != nil || !ok {
				continue
			}
		}
		switch r.BindType {
		case structs.ACLBindingRuleBindTypeManagement:
			out.Management = true
			continue
		}
		name, err := interpolate(r.BindName, vars, false)
		if err != nil || name == "" {
			continue
		}
		switch r.BindType {
		case structs.ACLBindingRuleBindTypeRole:
			if !slices.Contains(out.Roles, name) {
				out.Roles = append(out.Roles, name)
			}
		case structs.ACLBindingRuleBindTypePolicy:
			if !slices.Contains(out.Policies, name) {
				out.Policies = append(out.Policies, name)
			}
		}
	}
	return out
}

var placeholder = regexp.MustCompile(`\$\{([^}]*)\}`)

// interpolate replaces ${name} in s from vars. With syntaxOnly it checks
// only that each placeholder is ${value.<name>} or a var's name.
func interpolate(s string, vars map[string]string, syntaxOnly bool) (string, error) {
	var missing error
	out := placeholder.ReplaceAllStringFunc(s, func(m string) string {
		name := strings.TrimSpace(m[2 : len(m)-1])
		if syntaxOnly {
			if _, ok := vars[name]; !ok && (!strings.HasPrefix(name, "value.") || len(name) == len("value.")) && missing == nil {
				missing = fmt.Errorf("%q: only ${value.<claim>} can be interpolated", m)
			}
			return ""
		}
		v, ok := vars[name]
		if !ok && missing == nil {
			missing = fmt.Errorf("%q: no such value", m)
		}
		return v
	})
	if missing != nil {
		return "", missing
	}
	if strings.Contains(out, "${") {
		return "", fmt.Errorf("unterminated ${")
	}
	return out, nil
}

// TokenName is the name of a token minted by m for claims.
func TokenName(m *structs.ACLAuthMethod, claims *Claims) string {
	format := m.TokenNameFormat
	if format == "" {
		format = "${auth_method_type}-${auth_method_name}"
	}
	vars := map[string]string{"auth_method_type": m.Type, "auth_method_name": m.Name}
	for k, v := range claims.Value {
		vars["value."+k] = v
	}
	name, err := interpolate(format, vars, false)
	if err != nil {
		name, _ = interpolate("${auth_method_type}-${auth_method_name}", vars, false)
	}
	if len(name) > 256 {
		name = name[:256]
	}
	return name
}
