package jobspec

import (
	"math"
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// configBody turns a free-form body (driver config, scaling policy) into
// the map the driver decodes later. The parser cannot know the driver's
// schema, so it keeps everything: attributes become values, and nested
// blocks become lists of maps, repeated blocks appending to the list, the
// shape Nomad's parser gives (mount { ... } mount { ... } -> "mount": [{...}, {...}]).
func (d *decoder) configBody(body hcl.Body) map[string]any {
	out := map[string]any{}
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		// JSON bodies have no blocks: objects and arrays already carry the shape.
		attrs, diags := body.JustAttributes()
		d.diags = append(d.diags, diags...)
		d.configAttrs(attrs, out)
		return out
	}
	attrs := hcl.Attributes{}
	for name, a := range sb.Attributes {
		attrs[name] = a.AsHCLAttribute()
	}
	d.configAttrs(attrs, out)
	for _, blk := range sb.Blocks {
		d.configBlock(blk, out)
	}
	return out
}

func (d *decoder) configAttrs(attrs hcl.Attributes, out map[string]any) {
	for _, name := range sortedKeys(attrs) {
		attr := attrs[name]
		if v, ok := d.eval(attr.Expr); ok {
			out[name] = goValue(v)
		}
	}
}

// configBlock appends a nested block's map to the list under its type.
// Labels nest: `foo "a" { x = 1 }` becomes "foo": [{"a": {"x": 1}}].
func (d *decoder) configBlock(blk *hclsyntax.Block, out map[string]any) {
	var v any = d.configBody(blk.Body)
	for i := len(blk.Labels) - 1; i >= 0; i-- {
		v = map[string]any{blk.Labels[i]: v}
	}
	existing, present := out[blk.Type]
	list, isList := existing.([]map[string]any)
	if present && !isList {
		d.diags = append(d.diags, errorf(blk.TypeRange, "Duplicate config key",
			"%q is set both as an argument and as a block.", blk.Type))
		return
	}
	out[blk.Type] = append(list, v.(map[string]any))
}

// goValue converts an evaluated cty value to plain Go values that marshal
// to the JSON the API expects: whole numbers become int, others float64.
func goValue(v cty.Value) any {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	t := v.Type()
	switch {
	case t == cty.String:
		return v.AsString()
	case t == cty.Bool:
		return v.True()
	case t == cty.Number:
		return number(v.AsBigFloat())
	case t.IsListType() || t.IsTupleType() || t.IsSetType():
		out := make([]any, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, goValue(e))
		}
		return out
	case t.IsMapType() || t.IsObjectType():
		out := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			out[k.AsString()] = goValue(e)
		}
		return out
	}
	return nil
}

func number(f *big.Float) any {
	if f.IsInt() {
		if n, acc := f.Int64(); acc == big.Exact {
			return int(n)
		}
	}
	x, acc := f.Float64()
	if math.IsInf(x, 0) || (x == 0 && acc != big.Exact) {
		// beyond float64: JSON cannot carry it as a number
		return f.Text('g', -1)
	}
	return x
}
