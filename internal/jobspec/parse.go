package jobspec

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"
	"github.com/zclconf/go-cty/cty"

	"github.com/drover-project/drover/internal/jobspec/fields"
)

// ParseOptions carries the inputs a job file may draw on besides itself.
type ParseOptions struct {
	Vars     map[string]string // -var k=v (raw strings, parsed per the variable's type)
	VarFiles []string          // -var-file paths (HCL or JSON)
	Env      []string          // environment ("K=V"), for NOMAD_VAR_* values; nil means os.Environ()
	AllowFS  bool              // allow file()/fileset() functions relative to the job file's dir
	// VarContents are variables files given as content rather than paths
	// (the HTTP parse endpoint's Variables), applied after VarFiles.
	VarContents []VarContent
	// AllowUnsupported turns the refusal of what Drover does not act on
	// (the job-field contract, internal/jobspec/fields) into warnings: for
	// tests of the decoding itself, never for a job that will run.
	AllowUnsupported bool
	// Positions, when not nil, is filled with where each block and
	// attribute of the job was written, by its api path
	// ("TaskGroups[0].Tasks[1]" -> "job.hcl:12:5"), so that a server's
	// answer naming a path can point at the file (the CLI does).
	Positions map[string]string
}

// ParseFile reads and parses the job file at path.
func ParseFile(path string, opts ParseOptions) (*api.Job, []Warning, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return Parse(path, src, opts)
}

var fileSchema = schema(nil, "job:name", "variable:name", "locals")

// Parse parses one job file's source. filename is used in positions and,
// with AllowFS, as the base for relative file paths. The error, when not
// nil, is an *Error listing every problem found.
func Parse(filename string, src []byte, opts ParseOptions) (*api.Job, []Warning, error) {
	f, diags := parseSource(filename, src)
	if diags.HasErrors() {
		return nil, warnings(diags), newError(diags)
	}
	budget := newWorkBudget()
	if diags := append(diags, budgetExprs(f.Body, budget)...); diags.HasErrors() {
		return nil, warnings(diags), newError(diags)
	}
	d := &decoder{
		ctx: &hcl.EvalContext{
			Functions: functions(opts.AllowFS, filepath.Dir(filename), budget),
			Variables: map[string]cty.Value{},
		},
		diags:   diags,
		budget:  budget,
		at:      map[uintptr]hcl.Range{},
		blockAt: map[uintptr]hcl.Range{},
		lenient: opts.AllowUnsupported,
	}
	job := d.parseFile(f, opts)
	if job != nil { // with the other errors, so that one pass lists all
		d.checkContract(job)
		if opts.Positions != nil {
			d.positions("", reflect.ValueOf(job).Elem(), opts.Positions)
		}
	}
	if err := newError(d.diags); err != nil {
		return nil, warnings(d.diags), err
	}
	return job, warnings(d.diags), nil
}

// parseFile resolves variables and locals, then decodes the job block.
// Input problems stop the parse before the job: every expression using a
// broken variable would otherwise add a confusing error of its own.
func (d *decoder) parseFile(f *hcl.File, opts ParseOptions) *api.Job {
	top := d.open(f.Body, fileSchema, f.Body.MissingItemRange())
	vars := d.declareVariables(top.all("variable"))
	values := d.variableValues(vars, opts)
	if d.diags.HasErrors() {
		return nil
	}
	d.ctx.Variables["var"] = values
	d.validate(vars, values)
	d.ctx.Variables["local"] = d.evalLocals(top.all("locals"))
	if d.diags.HasErrors() {
		return nil
	}
	jobs := top.all("job")
	if len(jobs) == 0 {
		d.diags = append(d.diags, errorf(f.Body.MissingItemRange(), "Missing job block",
			"A job file must contain exactly one job block."))
		return nil
	}
	return d.job(top.one("job"))
}

// VarContent is a variables file's content with a name for error positions
// (a ".json" suffix selects JSON).
type VarContent struct {
	Name    string
	Content []byte
}

// checkContract reports, at the attribute or block that set it, every
// field of the decoded job that the field contract refuses or warns about
// (internal/jobspec/fields): the same check the server runs at register,
// plan and validate, with file:line:col.
func (d *decoder) checkContract(job *api.Job) {
	refused, warned := fields.Check(job)
	for _, f := range refused {
		d.refuse(d.rangeOf(f), "Unsupported field", f.String())
	}
	for _, f := range warned {
		d.diags = append(d.diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Ignored field",
			Detail: f.String() + " (ignored)", Subject: d.rangeOf(f).Ptr()})
	}
}

// positions records, under its path, where each struct (block) and field
// (attribute) of v was written.
func (d *decoder) positions(path string, v reflect.Value, out map[string]string) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			d.positions(path, v.Elem(), out)
		}
	case reflect.Slice:
		for i := range v.Len() {
			d.positions(fmt.Sprintf("%s[%d]", path, i), v.Index(i), out)
		}
	case reflect.Struct:
		if v.CanAddr() {
			if r, ok := d.blockAt[v.Addr().Pointer()]; ok && path != "" {
				out[path] = pos(&r)
			}
		}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			p := strings.TrimPrefix(path+"."+f.Name, ".")
			if fv := v.Field(i); fv.CanAddr() {
				if r, ok := d.at[fv.Addr().Pointer()]; ok {
					out[p] = pos(&r)
				}
			}
			d.positions(p, v.Field(i), out)
		}
	}
}

// rangeOf is where the finding's field, or the innermost block holding it,
// was written.
func (d *decoder) rangeOf(f fields.Finding) hcl.Range {
	if r, ok := d.at[f.Field]; ok && f.Field != 0 {
		return r
	}
	if r, ok := d.blockAt[f.Target]; ok && f.Target != 0 {
		return r
	}
	for _, a := range f.Blocks {
		if r, ok := d.blockAt[a]; ok {
			return r
		}
	}
	return hcl.Range{}
}
