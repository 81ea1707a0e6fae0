package jobspec

import (
	"reflect"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/drover-project/drover/internal/jobspec/fields"
)

// decoder accumulates diagnostics while the job tree is decoded, so that
// every problem in a file is reported at once rather than the first only.
type decoder struct {
	ctx    *hcl.EvalContext // var.*, local.* and functions
	diags  hcl.Diagnostics
	budget *workBudget // the parse's evaluation budget, variables files included
	// at maps the address of each api field set from an attribute, and of
	// each api struct decoded from a block, to where it was written: the
	// contract check (fields.Check) reports refused fields there.
	at, blockAt map[uintptr]hcl.Range
	// lenient accepts what Drover does not support, with a warning
	// (ParseOptions.AllowUnsupported).
	lenient bool
}

// mark records where the attribute that set *dst was written.
func (b *block) mark(dst any, name string) {
	if attr, ok := b.attrs[name]; ok && b.d.at != nil {
		b.d.at[reflect.ValueOf(dst).Pointer()] = attr.NameRange
	}
}

// markBlock records where the block decoded into the struct *dst starts.
func (d *decoder) markBlock(dst any, rng hcl.Range) {
	if d.blockAt != nil {
		d.blockAt[reflect.ValueOf(dst).Pointer()] = rng
	}
}

// block is the decoded content of one HCL block: the attributes and nested
// blocks that its schema allows, each fetched by name by the typed helpers.
type block struct {
	d      *decoder
	attrs  hcl.Attributes
	blocks hcl.Blocks
	rng    hcl.Range // the block header, for errors about the block itself
}

// schema builds a body schema. Block specs are "name" or "name:label" (one
// label); the label's name only documents what it is.
func schema(attrs []string, blocks ...string) *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, a := range attrs {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: a})
	}
	for _, b := range blocks {
		name, label, hasLabel := strings.Cut(b, ":")
		h := hcl.BlockHeaderSchema{Type: name}
		if hasLabel {
			h.LabelNames = []string{label}
		}
		s.Blocks = append(s.Blocks, h)
	}
	return s
}

// open decodes body against s. HCL itself reports unknown attributes and
// blocks (with "did you mean" hints), which is the strictness Nomad has.
func (d *decoder) open(body hcl.Body, s *hcl.BodySchema, rng hcl.Range) *block {
	content, diags := body.Content(s)
	d.diags = append(d.diags, diags...)
	if content == nil {
		content = &hcl.BodyContent{}
	}
	return &block{d: d, attrs: content.Attributes, blocks: content.Blocks, rng: rng}
}

// openBlock opens a nested block with the header range used for errors.
func (d *decoder) openBlock(hb *hcl.Block, s *hcl.BodySchema) *block {
	return d.open(hb.Body, s, hb.DefRange)
}

// eval evaluates an expression with runtime references kept literal.
func (d *decoder) eval(expr hcl.Expression) (cty.Value, bool) {
	v, diags := expr.Value(runtimeContext(d.ctx, expr))
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return cty.NilVal, false
	}
	if !v.IsWhollyKnown() {
		d.diags = append(d.diags, errorf(expr.Range(), "Unknown value",
			"the value depends on something that is only known at runtime"))
		return cty.NilVal, false
	}
	v, _ = v.UnmarkDeep()
	return v, true
}

// value evaluates attribute name converted to ty. ok is false when the
// attribute is absent, null or invalid (the latter already reported).
func (b *block) value(name string, ty cty.Type) (cty.Value, *hcl.Attribute, bool) {
	attr, present := b.attrs[name]
	if !present {
		return cty.NilVal, nil, false
	}
	v, ok := b.d.eval(attr.Expr)
	if !ok || v.IsNull() {
		return cty.NilVal, attr, false
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		b.d.diags = append(b.d.diags, errorf(attr.Expr.Range(), "Incorrect attribute value type",
			"Inappropriate value for attribute %q: %s.", name, err.Error()))
		return cty.NilVal, attr, false
	}
	return cv, attr, true
}

// has reports whether the attribute is set at all.
func (b *block) has(name string) bool {
	_, ok := b.attrs[name]
	return ok
}

// all returns the nested blocks of one type, in file order.
func (b *block) all(typ string) []*hcl.Block {
	var out []*hcl.Block
	for _, hb := range b.blocks {
		if hb.Type == typ {
			out = append(out, hb)
		}
	}
	return out
}

// openOne opens the one nested block typ with schema, or returns nil when
// there is none (a duplicate is reported, as by one).
func (b *block) openOne(typ string, schema *hcl.BodySchema) *block {
	hb := b.one(typ)
	if hb == nil {
		return nil
	}
	return b.d.openBlock(hb, schema)
}

// decodeOne decodes the one nested block typ into a new T filled by fill,
// or returns nil when there is none.
func decodeOne[T any](b *block, typ string, schema *hcl.BodySchema, fill func(*block, *T)) *T {
	nb := b.openOne(typ, schema)
	if nb == nil {
		return nil
	}
	out := new(T)
	b.d.markBlock(out, nb.rng)
	fill(nb, out)
	return out
}

// one returns the single nested block of a type, reporting duplicates:
// Nomad allows e.g. only one update block per scope.
func (b *block) one(typ string) *hcl.Block {
	found := b.all(typ)
	if len(found) == 0 {
		return nil
	}
	for _, dup := range found[1:] {
		b.d.diags = append(b.d.diags, errorf(dup.DefRange, "Duplicate "+typ+" block",
			"Only one %q block is allowed here; another was defined at %s.", typ, pos(&found[0].DefRange)))
	}
	return found[0]
}

// unsupported refuses a block Drover does not act on (vault, consul, ...)
// with the message of the field contract's row (internal/jobspec/fields);
// with ParseOptions.AllowUnsupported it is a warning and the block is
// ignored.
func (b *block) unsupported(typ, row string) {
	msg := "Drover does not support the " + typ + " block"
	if r := fields.Lookup(row); r != nil && r.Message != "" {
		msg += ": " + r.Message
	}
	for _, hb := range b.all(typ) {
		b.d.refuse(hb.DefRange, "Unsupported "+typ+" block", msg)
	}
}

// refuse reports what Drover does not support: an error, or a warning
// saying it is ignored when the parse is lenient.
func (d *decoder) refuse(rng hcl.Range, summary, detail string) {
	sev := hcl.DiagError
	if d.lenient {
		sev, summary, detail = hcl.DiagWarning, "Ignored: "+summary, detail+"; it is accepted and ignored (AllowUnsupported)"
	}
	d.diags = append(d.diags, &hcl.Diagnostic{Severity: sev, Summary: summary, Detail: detail, Subject: rng.Ptr()})
}

// errAt reports a problem with an attribute's value.
func (b *block) errAt(attr *hcl.Attribute, summary, format string, args ...any) {
	b.d.diags = append(b.d.diags, errorf(attr.Expr.Range(), summary, format, args...))
}
