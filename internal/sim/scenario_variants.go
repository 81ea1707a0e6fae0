package sim

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"
)

// A scenario file may hold variant blocks: the same story told with a few
// values changed (a reconcile mode, a node count), written once instead
// of copied per value. The file is then one scenario per variant, in file
// order; each decodes the rest of the file with var.NAME bound to the
// variant's attributes:
//
//	variant "keep_original" {
//	  reconcile = "keep_original"
//	  kept      = "a"
//	}
//	job "web" {
//	  disconnect { reconcile = var.reconcile }
//	}
//
// Every variant must set the same attributes. The golden transcript of
// such a file holds every variant's transcript, in order.

var variantSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "variant", LabelNames: []string{"name"}}}}

// ParseScenarios decodes a scenario file: one scenario, or one per
// variant block.
func ParseScenarios(src []byte, filename string) ([]*Scenario, error) {
	f, diags := hclparse.NewParser().ParseHCL(src, filename)
	if diags.HasErrors() {
		return nil, diags
	}
	content, rest, diags := f.Body.PartialContent(variantSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	if len(content.Blocks) == 0 {
		sc, err := decodeScenario(rest, nil)
		if err != nil {
			return nil, err
		}
		return []*Scenario{sc}, nil
	}
	var out []*Scenario
	var names []string
	for _, b := range content.Blocks {
		vars, err := variantVars(b)
		if err != nil {
			return nil, err
		}
		if err := sameNames(names, vars, b.Labels[0]); err != nil {
			return nil, err
		}
		names = sortedKeys(vars)
		sc, err := decodeScenario(rest, &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(vars)}})
		if err != nil {
			return nil, fmt.Errorf("variant %q: %w", b.Labels[0], err)
		}
		sc.Variant = b.Labels[0]
		out = append(out, sc)
	}
	return out, nil
}

// variantVars evaluates a variant block's attributes (constants only).
func variantVars(b *hcl.Block) (map[string]cty.Value, error) {
	attrs, diags := b.Body.JustAttributes()
	if diags.HasErrors() {
		return nil, diags
	}
	vars := make(map[string]cty.Value, len(attrs))
	for name, a := range attrs {
		v, diags := a.Expr.Value(nil)
		if diags.HasErrors() {
			return nil, diags
		}
		vars[name] = v
	}
	return vars, nil
}

// sameNames checks a variant sets the attributes the first one did.
func sameNames(first []string, vars map[string]cty.Value, label string) error {
	if first == nil {
		return nil
	}
	got := sortedKeys(vars)
	if fmt.Sprint(got) != fmt.Sprint(first) {
		return fmt.Errorf("variant %q sets %v, the first variant %v", label, got, first)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
