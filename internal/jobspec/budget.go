package jobspec

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// MaxGeneratedElements bounds the work of one parse (its evaluation
// budget): the elements of every list, tuple and object literal in the
// job file and its variables files, the elements that range() and
// setproduct() return, and the iterations of every for expression, nested
// ones counted each time they run. Each function is already bounded per
// call, but nested for expressions multiply: a 135-byte file with two
// nested fors over range(1000) took 4.7 s and 1.8 GB before this budget.
// Literals count because evaluating one costs far more than reading it:
// a plain 200,000-element list took 17 s of CPU to parse and submit. The
// budget equals MaxRangeElements, so one range() as large as allowed still
// fits.
const MaxGeneratedElements = 100_000

// budgetExceeded says which budget was spent, and how large it is.
func budgetExceeded() error {
	return fmt.Errorf("the job file's literals, for expressions and functions generate more than %d elements (its evaluation budget)", MaxGeneratedElements)
}

// workBudget counts what one parse has generated.
type workBudget struct{ left int64 }

func newWorkBudget() *workBudget { return &workBudget{left: MaxGeneratedElements} }

// exhausted is checked before evaluating anything more: once the budget
// is gone, every further for expression and range fails at once instead
// of computing a result first.
func (b *workBudget) exhausted() error {
	if b.left < 0 {
		return budgetExceeded()
	}
	return nil
}

func (b *workBudget) spend(n int) error {
	b.left -= int64(n)
	if b.left < 0 {
		return budgetExceeded()
	}
	return nil
}

// budgetExprs charges body's work to b before anything in it is
// evaluated: the elements of every list, tuple and object literal are
// spent at once (a literal too large fails here, unevaluated), and every
// for expression is made to charge its iterations: the collection it
// iterates is wrapped so that each evaluation spends its length. The
// error, if any, is at the literal that overran the budget.
func budgetExprs(body hcl.Body, b *workBudget) hcl.Diagnostics {
	syn, ok := body.(*hclsyntax.Body)
	if !ok {
		return nil // JSON: expressions live in strings; range() is still charged
	}
	var diags hcl.Diagnostics
	_ = hclsyntax.VisitAll(syn, func(n hclsyntax.Node) hcl.Diagnostics {
		elements := 0
		switch e := n.(type) {
		case *hclsyntax.ForExpr:
			e.CollExpr = &budgetedCollection{Expression: e.CollExpr, budget: b}
		case *hclsyntax.TupleConsExpr:
			elements = len(e.Exprs)
		case *hclsyntax.ObjectConsExpr:
			elements = len(e.Items)
		}
		if elements > 0 && !diags.HasErrors() {
			if err := b.spend(elements); err != nil {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError, Summary: "Job file too expensive", Detail: err.Error(),
					Subject: n.Range().Ptr(),
				})
			}
		}
		return nil
	})
	return diags
}

// budgetedCollection is a for expression's collection that charges its
// length to the parse's budget each time it is evaluated.
type budgetedCollection struct {
	hclsyntax.Expression
	budget *workBudget
}

func (c *budgetedCollection) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	if err := c.budget.exhausted(); err != nil {
		return cty.DynamicVal, c.tooExpensive(nil, err)
	}
	v, diags := c.Expression.Value(ctx)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || !v.CanIterateElements() {
		return v, diags
	}
	if err := c.budget.spend(v.LengthInt()); err != nil {
		return cty.DynamicVal, c.tooExpensive(diags, err)
	}
	return v, diags
}

func (c *budgetedCollection) tooExpensive(diags hcl.Diagnostics, err error) hcl.Diagnostics {
	return append(diags, &hcl.Diagnostic{
		Severity: hcl.DiagError, Summary: "Job file too expensive", Detail: err.Error(),
		Subject: c.Range().Ptr(),
	})
}

// charged wraps a collection-returning function so its result's length
// is spent from b.
func charged(fn function.Function, b *workBudget) function.Function {
	return wrapFunc(fn, func([]cty.Value) error { return b.exhausted() }, func(v cty.Value) error {
		if v.IsKnown() && !v.IsNull() && v.CanIterateElements() {
			return b.spend(v.LengthInt())
		}
		return nil
	})
}
