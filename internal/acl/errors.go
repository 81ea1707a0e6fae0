package acl

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// ParseError is one problem in a policy document. Line and Column are
// 1-based; 0 when the problem has no single position.
type ParseError struct {
	Line, Column int
	Msg          string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg)
}

// ParseErrors are every problem found in one document.
type ParseErrors []*ParseError

func (es ParseErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

func errAt(r hcl.Range, msg string) *ParseError {
	return &ParseError{Line: r.Start.Line, Column: r.Start.Column, Msg: msg}
}

// diagError converts HCL diagnostics to ParseErrors.
func diagError(diags hcl.Diagnostics) error {
	var out ParseErrors
	for _, d := range diags.Errs() {
		var hd *hcl.Diagnostic
		if x, ok := d.(*hcl.Diagnostic); ok {
			hd = x
		}
		if hd == nil {
			out = append(out, &ParseError{Msg: d.Error()})
			continue
		}
		msg := hd.Summary
		if hd.Detail != "" {
			msg += ": " + hd.Detail
		}
		pe := &ParseError{Msg: msg}
		if hd.Subject != nil {
			pe.Line, pe.Column = hd.Subject.Start.Line, hd.Subject.Start.Column
		}
		out = append(out, pe)
	}
	return out
}
