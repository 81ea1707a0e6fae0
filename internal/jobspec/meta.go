package jobspec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// meta reads a string map written either as a block (meta { k = "v" }) or
// as an attribute (meta = { k = "v" }); Nomad accepts both for meta and
// env. Both forms together merge, the block winning.
func (b *block) meta(name string) map[string]string {
	var out map[string]string
	b.strMap(name, &out)
	for _, hb := range b.all(name) {
		if out == nil {
			out = map[string]string{}
		}
		b.d.blockMap(hb, out)
	}
	return out
}

// blockMap evaluates every attribute of a free-form block as a string.
func (d *decoder) blockMap(hb *hcl.Block, out map[string]string) {
	attrs, diags := hb.Body.JustAttributes()
	d.diags = append(d.diags, diags...)
	fields := &block{d: d, attrs: attrs, rng: hb.DefRange}
	for _, k := range sortedKeys(attrs) {
		if v, ok := read(fields, k, cty.String, ctyString); ok {
			out[k] = v
		}
	}
}

// ignoreAttrs accepts attributes Drover does not act on, with a warning.
func (b *block) ignoreAttrs(names ...string) {
	for _, n := range names {
		if attr, ok := b.attrs[n]; ok {
			b.d.diags = append(b.d.diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Ignored " + n + " attribute",
				Detail:   "Drover does not support " + n + "; it is accepted and ignored.",
				Subject:  attr.NameRange.Ptr(),
			})
		}
	}
}
