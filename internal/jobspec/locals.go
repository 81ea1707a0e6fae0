package jobspec

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// evalLocals evaluates every attribute of every locals block. Locals may
// refer to each other in any order, so they are evaluated in rounds: each
// round evaluates the locals whose local.* references are all resolved;
// what is left when a round makes no progress is a cycle or a reference to
// an undefined local.
func (d *decoder) evalLocals(blocks []*hcl.Block) cty.Value {
	pending := d.collectLocals(blocks)
	done := map[string]cty.Value{}
	for len(pending) > 0 {
		progress := false
		for _, name := range sortedKeys(pending) {
			attr := pending[name]
			if !localDepsReady(attr.Expr, done) {
				continue
			}
			d.ctx.Variables["local"] = cty.ObjectVal(done)
			v, ok := d.eval(attr.Expr)
			if !ok {
				v = cty.DynamicVal
			}
			done[name] = v
			delete(pending, name)
			progress = true
		}
		if !progress {
			d.unresolvedLocals(pending, done)
			break
		}
	}
	return cty.ObjectVal(done)
}

func (d *decoder) collectLocals(blocks []*hcl.Block) map[string]*hcl.Attribute {
	all := map[string]*hcl.Attribute{}
	for _, hb := range blocks {
		attrs, diags := hb.Body.JustAttributes()
		d.diags = append(d.diags, diags...)
		for name, attr := range attrs {
			if prev, dup := all[name]; dup {
				d.diags = append(d.diags, errorf(attr.NameRange, "Duplicate local value",
					"Local %q was already defined at %s.", name, pos(&prev.NameRange)))
				continue
			}
			all[name] = attr
		}
	}
	return all
}

// localDepsReady reports whether every local.<name> the expression uses
// has been evaluated.
func localDepsReady(expr hcl.Expression, done map[string]cty.Value) bool {
	for _, t := range expr.Variables() {
		if t.RootName() != "local" || len(t) < 2 {
			continue
		}
		if attr, ok := t[1].(hcl.TraverseAttr); ok {
			if _, ok := done[attr.Name]; !ok {
				return false
			}
		}
	}
	return true
}

// unresolvedLocals reports locals that could not be evaluated: evaluating
// them now yields HCL's own "unsupported attribute" error, pointing at the
// reference to the missing or cyclic local.
func (d *decoder) unresolvedLocals(pending map[string]*hcl.Attribute, done map[string]cty.Value) {
	for _, name := range sortedKeys(pending) {
		d.ctx.Variables["local"] = cty.ObjectVal(done)
		if _, ok := d.eval(pending[name].Expr); ok {
			// only reachable through a cycle: the referenced locals exist
			// in the file but not yet in done.
			d.diags = append(d.diags, errorf(pending[name].NameRange, "Cyclic local value",
				"Local %q depends on itself.", name))
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
