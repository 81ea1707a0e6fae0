package jobspec

import (
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"
	"github.com/zclconf/go-cty/cty"
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
		diags:  diags,
		budget: budget,
	}
	job := d.parseFile(f, opts)
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
