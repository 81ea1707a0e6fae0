package config

import (
	"fmt"
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// bodyToMap turns an arbitrary HCL body (a plugin's config { }) into plain Go
// values. Native syntax is walked so nested blocks are kept; JSON bodies have
// no blocks, only nested objects, so JustAttributes covers them. Both forms
// give the same shape: one block or object -> map[string]any, repeated
// blocks -> []any of maps, a labelled block -> map keyed by its label.
func bodyToMap(body hcl.Body) (map[string]any, hcl.Diagnostics) {
	if sb, ok := body.(*hclsyntax.Body); ok {
		return syntaxBodyToMap(sb)
	}
	attrs, diags := body.JustAttributes()
	out := make(map[string]any, len(attrs))
	for name, a := range attrs {
		v, d := exprToGo(a.Expr)
		diags = append(diags, d...)
		out[name] = v
	}
	return out, diags
}

func syntaxBodyToMap(b *hclsyntax.Body) (map[string]any, hcl.Diagnostics) {
	out := make(map[string]any, len(b.Attributes)+len(b.Blocks))
	var diags hcl.Diagnostics
	for name, a := range b.Attributes {
		v, d := exprToGo(a.Expr)
		diags = append(diags, d...)
		out[name] = v
	}
	for _, blk := range b.Blocks {
		inner, d := syntaxBodyToMap(blk.Body)
		diags = append(diags, d...)
		var v any = inner
		// Wrap innermost label first so `a "x" "y" {}` becomes a.x.y.
		for i := len(blk.Labels) - 1; i >= 0; i-- {
			v = map[string]any{blk.Labels[i]: v}
		}
		addBlock(out, blk.Type, v)
	}
	return out, diags
}

// addBlock stores a block value, turning a repeated block type into a list.
func addBlock(out map[string]any, typ string, v any) {
	switch prev := out[typ].(type) {
	case nil:
		out[typ] = v
	case []any:
		out[typ] = append(prev, v)
	default:
		out[typ] = []any{prev, v}
	}
}

func exprToGo(expr hcl.Expression) (any, hcl.Diagnostics) {
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		return nil, diags
	}
	out, err := ctyToGo(v)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Unsupported plugin config value",
			Detail:   err.Error(),
			Subject:  expr.Range().Ptr(),
		}}
	}
	return out, nil
}

// ctyToGo converts a known cty value to string, bool, int, float64, []any or
// map[string]any. Whole numbers become int because drivers expect ints for
// ports, sizes and counts.
func ctyToGo(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	if !v.IsWhollyKnown() {
		return nil, fmt.Errorf("value is not known")
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString(), nil
	case ty == cty.Bool:
		return v.True(), nil
	case ty == cty.Number:
		return numberToGo(v.AsBigFloat()), nil
	case ty.IsListType() || ty.IsTupleType() || ty.IsSetType():
		return ctyListToGo(v)
	case ty.IsMapType() || ty.IsObjectType():
		return ctyMapToGo(v)
	}
	return nil, fmt.Errorf("values of type %s are not supported", ty.FriendlyName())
}

func numberToGo(f *big.Float) any {
	if f.IsInt() {
		if i, acc := f.Int64(); acc == big.Exact {
			return int(i)
		}
	}
	x, _ := f.Float64()
	return x
}

func ctyListToGo(v cty.Value) (any, error) {
	out := make([]any, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		g, err := ctyToGo(ev)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

func ctyMapToGo(v cty.Value) (any, error) {
	out := make(map[string]any, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		g, err := ctyToGo(ev)
		if err != nil {
			return nil, err
		}
		out[k.AsString()] = g
	}
	return out, nil
}
