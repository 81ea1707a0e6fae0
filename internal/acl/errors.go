package acl

import (
	"fmt"
	"strings"
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
