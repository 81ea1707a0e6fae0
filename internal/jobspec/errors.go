package jobspec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Warning is a non-fatal problem: the job parsed, but something in the file
// was accepted without effect (a vault block, say) and the operator should
// know.
type Warning struct {
	Pos     string // file:line:col
	Message string
}

func (w Warning) String() string {
	if w.Pos == "" {
		return w.Message
	}
	return w.Pos + ": " + w.Message
}

// Diagnostic is one error found in a job file.
type Diagnostic struct {
	Pos     string // file:line:col, empty when the problem has no source position
	Summary string
	Detail  string
}

// Error carries every problem found in one parse, so an operator fixes a
// file in one round trip instead of one error at a time.
type Error struct {
	diags []Diagnostic
}

// Diagnostics returns the individual problems in source order of discovery.
func (e *Error) Diagnostics() []Diagnostic {
	return append([]Diagnostic(nil), e.diags...)
}

// Error lists each problem as "file:line:col: summary: detail", one per line.
func (e *Error) Error() string {
	lines := make([]string, 0, len(e.diags))
	for _, d := range e.diags {
		lines = append(lines, d.line())
	}
	return strings.Join(lines, "\n")
}

func (d Diagnostic) line() string {
	msg := d.Summary
	if d.Detail != "" {
		msg += ": " + d.Detail
	}
	if d.Pos == "" {
		return msg
	}
	return d.Pos + ": " + msg
}

// pos renders a range start the way compilers do, which editors can jump to.
func pos(r *hcl.Range) string {
	if r == nil || r.Filename == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// newError converts the error-severity HCL diagnostics into an *Error, or
// returns nil when there are none.
func newError(diags hcl.Diagnostics) error {
	var out []Diagnostic
	for _, d := range sortedDiags(diags) {
		if d.Severity != hcl.DiagError {
			continue
		}
		out = append(out, Diagnostic{Pos: pos(d.Subject), Summary: d.Summary, Detail: d.Detail})
	}
	if len(out) == 0 {
		return nil
	}
	return &Error{diags: out}
}

// warnings converts the warning-severity HCL diagnostics.
func warnings(diags hcl.Diagnostics) []Warning {
	var out []Warning
	for _, d := range sortedDiags(diags) {
		if d.Severity != hcl.DiagWarning {
			continue
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		out = append(out, Warning{Pos: pos(d.Subject), Message: msg})
	}
	return out
}

// errorf builds one error diagnostic anchored at rng.
func errorf(rng hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  rng.Ptr(),
	}
}

// sortedDiags orders diagnostics by file and position: decoding visits
// attributes before blocks, but a reader scans a file top to bottom.
// Diagnostics without a position keep their relative order, last.
func sortedDiags(diags hcl.Diagnostics) hcl.Diagnostics {
	out := append(hcl.Diagnostics(nil), diags...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Subject, out[j].Subject
		switch {
		case a == nil || b == nil:
			return a != nil && b == nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
	return out
}
