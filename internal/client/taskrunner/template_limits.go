package taskrunner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/template"
	"text/template/parse"
)

// MaxTemplateBytes caps a rendered template, and every string a template
// function builds on the way: a template is job input, and without a cap
// a 75-byte template wrote 300 MB into the task dir.
const MaxTemplateBytes = 10 << 20

var errTemplateTooLarge = fmt.Errorf("output larger than %d bytes", MaxTemplateBytes)

// capWriter fails the render once more than limit bytes are written, so
// text/template stops executing.
type capWriter struct {
	w     io.Writer
	left  int
	limit int
}

func newCapWriter(w io.Writer) *capWriter {
	return &capWriter{w: w, left: MaxTemplateBytes, limit: MaxTemplateBytes}
}

func (c *capWriter) Write(p []byte) (int, error) {
	if len(p) > c.left {
		return 0, errTemplateTooLarge
	}
	c.left -= len(p)
	return c.w.Write(p)
}

// MaxTemplateListLen caps the lists split builds. MaxTemplateSteps caps
// the range iterations and template invocations of one render: a loop
// that writes nothing never meets the output cap, and a template that
// calls itself twice explores 2^depth calls.
const (
	MaxTemplateListLen = 100_000
	MaxTemplateSteps   = 1_000_000
)

// tickFunc is the hidden function counted at every step.
const tickFunc = "__drover_step"

// splitCapped is split refusing more than MaxTemplateListLen elements.
func splitCapped(sep, s string) ([]string, error) {
	if n := strings.Count(s, sep) + 1; sep == "" && len(s) > MaxTemplateListLen || sep != "" && n > MaxTemplateListLen {
		return nil, fmt.Errorf("split would make more than %d elements", MaxTemplateListLen)
	}
	return strings.Split(s, sep), nil
}

// stepCounter returns the step function: it fails the render once
// MaxTemplateSteps steps have run.
func stepCounter() func() (string, error) {
	steps := 0
	return func() (string, error) {
		if steps++; steps > MaxTemplateSteps {
			return "", fmt.Errorf("template runs more than %d loop iterations and template calls", MaxTemplateSteps)
		}
		return "", nil
	}
}

// countSteps puts a call of the step function at the start of every
// template body and every range body of tmpl, so each iteration and each
// invocation is counted. text/template has no execution budget of its
// own; its parse tree is the place to add one.
func countSteps(tmpl *template.Template, funcs template.FuncMap) error {
	probe, err := template.New("step").Funcs(funcs).Parse("{{" + tickFunc + "}}")
	if err != nil {
		return err
	}
	step := probe.Tree.Root.Nodes[0]
	for _, t := range tmpl.Templates() {
		if t.Tree == nil || t.Tree.Root == nil {
			continue
		}
		addStep(t.Tree.Root, step)
		t.Tree.Root.Nodes = append([]parse.Node{step}, t.Tree.Root.Nodes...)
	}
	return nil
}

func addStep(node parse.Node, step parse.Node) {
	switch n := node.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			addStep(c, step)
		}
	case *parse.RangeNode:
		addStep(n.List, step)
		addStep(n.ElseList, step)
		if n.List != nil {
			n.List.Nodes = append([]parse.Node{step}, n.List.Nodes...)
		}
	case *parse.IfNode:
		addStep(n.List, step)
		addStep(n.ElseList, step)
	case *parse.WithNode:
		addStep(n.List, step)
		addStep(n.ElseList, step)
	}
}

// replaceAllCapped is replaceAll refusing results over the cap, computed
// before the string is built.
func replaceAllCapped(from, to, s string) (string, error) {
	if n := strings.Count(s, from); n > 0 && len(to) > len(from) {
		if grow := n * (len(to) - len(from)); grow/n != len(to)-len(from) || len(s)+grow > MaxTemplateBytes {
			return "", errTemplateTooLarge
		}
	}
	return strings.ReplaceAll(s, from, to), nil
}

// joinCapped is join refusing results over the cap.
func joinCapped(sep string, l []string) (string, error) {
	total := len(sep) * max(len(l)-1, 0)
	for _, e := range l {
		total += len(e)
		if total > MaxTemplateBytes {
			return "", errTemplateTooLarge
		}
	}
	return strings.Join(l, sep), nil
}

// readCapped reads a file of at most MaxTemplateBytes.
func readCapped(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxTemplateBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > MaxTemplateBytes {
		return "", errors.New("file larger than the template size cap")
	}
	return string(b), nil
}
