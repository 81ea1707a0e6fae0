package jobspec

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// envVarPrefix is how Nomad takes variable values from the environment.
const envVarPrefix = "NOMAD_VAR_"

// variable is one declared input variable.
type variable struct {
	name        string
	typ         cty.Type  // cty.DynamicPseudoType when no type is declared
	def         cty.Value // cty.NilVal when there is no default
	rng         hcl.Range
	validations []*hcl.Block
}

var variableSchema = schema([]string{"type", "default", "description", "sensitive"}, "validation")

// declareVariables decodes the variable blocks, reporting duplicates.
func (d *decoder) declareVariables(blocks []*hcl.Block) map[string]*variable {
	vars := map[string]*variable{}
	for _, hb := range blocks {
		name := hb.Labels[0]
		if prev, dup := vars[name]; dup {
			d.diags = append(d.diags, errorf(hb.DefRange, "Duplicate variable",
				"Variable %q was already declared at %s.", name, pos(&prev.rng)))
			continue
		}
		if !hclsyntax.ValidIdentifier(name) {
			d.diags = append(d.diags, errorf(hb.LabelRanges[0], "Invalid variable name",
				"%q is not a valid identifier.", name))
			continue
		}
		vars[name] = d.declareVariable(name, hb)
	}
	return vars
}

func (d *decoder) declareVariable(name string, hb *hcl.Block) *variable {
	v := &variable{name: name, typ: cty.DynamicPseudoType, rng: hb.DefRange}
	b := d.openBlock(hb, variableSchema)
	if attr, ok := b.attrs["type"]; ok {
		ty, diags := typeexpr.TypeConstraint(attr.Expr)
		d.diags = append(d.diags, diags...)
		if !diags.HasErrors() {
			v.typ = ty
		}
	}
	if attr, ok := b.attrs["default"]; ok {
		if def, ok := d.eval(attr.Expr); ok {
			v.def = d.convertVar(v, def, attr.Expr.Range())
		}
	}
	v.validations = b.all("validation")
	return v
}

// convertVar converts a value to the variable's declared type.
func (d *decoder) convertVar(v *variable, val cty.Value, rng hcl.Range) cty.Value {
	out, err := convert.Convert(val, v.typ)
	if err != nil {
		d.diags = append(d.diags, errorf(rng, "Invalid value for variable",
			"The value for variable %q is not compatible with its type: %s.", v.name, err))
		return cty.NilVal
	}
	return out
}

// variableValues resolves each variable's value in Nomad's documented order
// of precedence, lowest first: default, NOMAD_VAR_ environment, -var-file
// files (in order), -var flags.
func (d *decoder) variableValues(vars map[string]*variable, opts ParseOptions) cty.Value {
	vals := map[string]cty.Value{}
	for name, v := range vars {
		if v.def != cty.NilVal {
			vals[name] = v.def
		}
	}
	d.envValues(vars, opts.Env, vals)
	for _, f := range opts.VarFiles {
		d.fileValues(vars, f, vals)
	}
	for _, c := range opts.VarContents {
		d.contentValues(vars, c.Name, c.Content, vals)
	}
	d.flagValues(vars, opts.Vars, vals)
	for name, v := range vars {
		if _, ok := vals[name]; !ok {
			d.diags = append(d.diags, errorf(v.rng, "Unset variable",
				"Variable %q has no default; set it with -var, -var-file or %s%s.", name, envVarPrefix, name))
			vals[name] = cty.DynamicVal
		}
	}
	return cty.ObjectVal(vals)
}

// envValues applies NOMAD_VAR_<name> values; unknown names are ignored
// because the environment is shared with everything else.
func (d *decoder) envValues(vars map[string]*variable, env []string, vals map[string]cty.Value) {
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		k, raw, ok := strings.Cut(kv, "=")
		name, isVar := strings.CutPrefix(k, envVarPrefix)
		if !ok || !isVar || vars[name] == nil {
			continue
		}
		d.setRaw(vars[name], raw, "<env "+k+">", vals)
	}
}

// flagValues applies -var values; an undeclared name is an error, as in
// Nomad, since it is almost always a typo.
func (d *decoder) flagValues(vars map[string]*variable, flags map[string]string, vals map[string]cty.Value) {
	names := make([]string, 0, len(flags))
	for k := range flags {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		v := vars[name]
		if v == nil {
			d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError,
				Summary: "Undefined -var variable", Detail: "No variable named \"" + name + "\" is declared."})
			continue
		}
		d.setRaw(v, flags[name], "<value for var."+name+">", vals)
	}
}

// setRaw parses a command-line or environment string per the variable's
// type: string-typed (or untyped) variables take it verbatim, others parse
// it as an HCL expression ("[1,2]", "{a=1}", "true").
func (d *decoder) setRaw(v *variable, raw, source string, vals map[string]cty.Value) {
	rng := hcl.Range{Filename: source, Start: hcl.InitialPos, End: hcl.InitialPos}
	if v.typ == cty.String || v.typ == cty.DynamicPseudoType {
		vals[v.name] = cty.StringVal(raw)
		return
	}
	expr, diags := hclsyntax.ParseExpression([]byte(raw), source, hcl.InitialPos)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return
	}
	if val, ok := d.eval(expr); ok {
		if out := d.convertVar(v, val, rng); out != cty.NilVal {
			vals[v.name] = out
		}
	}
}

// fileValues applies one -var-file (HCL, or JSON by extension).
func (d *decoder) fileValues(vars map[string]*variable, path string, vals map[string]cty.Value) {
	src, err := os.ReadFile(path)
	if err != nil {
		d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagError,
			Summary: "Failed to read variable file", Detail: err.Error()})
		return
	}
	d.contentValues(vars, path, src, vals)
}

// contentValues applies the values of one variables file's content; name
// (a path, or a label for content sent over the API) locates errors and
// picks JSON by a .json suffix.
func (d *decoder) contentValues(vars map[string]*variable, name string, src []byte, vals map[string]cty.Value) {
	path := name
	f, diags := parseSource(path, src)
	d.diags = append(d.diags, diags...)
	if f == nil {
		return
	}
	if diags := budgetExprs(f.Body, d.budget); diags.HasErrors() {
		d.diags = append(d.diags, diags...)
		return
	}
	attrs, diags := f.Body.JustAttributes()
	d.diags = append(d.diags, diags...)
	for name, attr := range attrs {
		v := vars[name]
		if v == nil {
			d.diags = append(d.diags, errorf(attr.NameRange, "Undefined -var-file variable",
				"No variable named %q is declared in the job file.", name))
			continue
		}
		if val, ok := d.eval(attr.Expr); ok {
			if out := d.convertVar(v, val, attr.Expr.Range()); out != cty.NilVal {
				vals[name] = out
			}
		}
	}
}

// parseSource parses HCL native syntax, or HCL's JSON syntax for .json.
func parseSource(filename string, src []byte) (*hcl.File, hcl.Diagnostics) {
	if strings.EqualFold(filepath.Ext(filename), ".json") {
		return hcljson.Parse(src, filename)
	}
	return hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
}

var validationSchema = schema([]string{"condition", "error_message"})

// validate runs each variable's validation blocks against its final value.
func (d *decoder) validate(vars map[string]*variable, values cty.Value) {
	for _, v := range vars {
		val := values.GetAttr(v.name)
		if !val.IsWhollyKnown() {
			continue
		}
		for _, hb := range v.validations {
			d.checkValidation(v, val, hb)
		}
	}
}

func (d *decoder) checkValidation(v *variable, val cty.Value, hb *hcl.Block) {
	b := d.openBlock(hb, validationSchema)
	cond, ok := b.attrs["condition"]
	if !ok {
		d.diags = append(d.diags, errorf(hb.DefRange, "Missing condition", "A validation block needs a condition."))
		return
	}
	ctx := d.ctx.NewChild()
	ctx.Variables = map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{v.name: val})}
	res, diags := cond.Expr.Value(ctx)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return
	}
	res, err := convert.Convert(res, cty.Bool)
	if err != nil || res.IsNull() || !res.IsKnown() {
		d.diags = append(d.diags, errorf(cond.Expr.Range(), "Invalid validation condition", "The condition must be a boolean."))
		return
	}
	if res.False() {
		msg := "The value of variable \"" + v.name + "\" failed validation."
		var em string
		b.str("error_message", &em)
		if em != "" {
			msg = em
		}
		d.diags = append(d.diags, errorf(v.rng, "Invalid value for variable", "%s", msg))
	}
}
