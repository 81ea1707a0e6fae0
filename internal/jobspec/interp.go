package jobspec

import (
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Runtime references such as ${attr.kernel.name}, ${node.unique.id},
// ${meta.rack}, ${env["HOME"]} or ${NOMAD_PORT_http} name values that only
// exist on the client when a task starts. The parser must hand them through
// untouched. Rather than rewriting the syntax tree, each expression is
// evaluated in a child context that binds every runtime reference it
// mentions to the literal text "${<reference>}", so a template like
// "${attr.os.name}-x" evaluates to exactly that string.

// isRuntimeRoot reports whether a root variable name belongs to the client's
// interpolation namespaces rather than to the job file.
func isRuntimeRoot(name string) bool {
	switch name {
	case "attr", "node", "meta", "env", "device":
		return true
	}
	return strings.HasPrefix(name, "NOMAD_")
}

// refNode is a tree of the runtime references in one expression: a leaf
// holds the literal text, inner nodes become objects.
type refNode struct {
	literal  string
	children map[string]*refNode
}

// runtimeContext returns base extended with the runtime references used by
// expr, or base itself when there are none.
func runtimeContext(base *hcl.EvalContext, expr hcl.Expression) *hcl.EvalContext {
	roots := map[string]*refNode{}
	for _, t := range expr.Variables() {
		if isRuntimeRoot(t.RootName()) {
			insertRef(roots, t)
		}
	}
	if len(roots) == 0 {
		return base
	}
	ctx := base.NewChild()
	ctx.Variables = map[string]cty.Value{}
	for name, n := range roots {
		ctx.Variables[name] = n.value()
	}
	return ctx
}

// insertRef adds a traversal's path to the tree, with its literal text at
// the leaf. Steps that are not attribute or constant-index steps end the
// path: whatever follows is evaluated against the literal.
func insertRef(roots map[string]*refNode, t hcl.Traversal) {
	root := t.RootName()
	n := roots[root]
	if n == nil {
		n = &refNode{}
		roots[root] = n
	}
	text := root
	for _, step := range t[1:] {
		key, rendered, ok := stepKey(step)
		if !ok {
			break
		}
		text += rendered
		if n.children == nil {
			n.children = map[string]*refNode{}
		}
		child := n.children[key]
		if child == nil {
			child = &refNode{}
			n.children[key] = child
		}
		n = child
	}
	n.literal = "${" + text + "}"
}

// stepKey returns the object key and canonical source text of one step.
func stepKey(step hcl.Traverser) (key, text string, ok bool) {
	switch s := step.(type) {
	case hcl.TraverseAttr:
		return s.Name, "." + s.Name, true
	case hcl.TraverseIndex:
		k := s.Key
		if k.IsNull() || !k.IsKnown() {
			return "", "", false
		}
		switch k.Type() {
		case cty.String:
			return k.AsString(), "[" + strconv.Quote(k.AsString()) + "]", true
		case cty.Number:
			txt := k.AsBigFloat().Text('f', -1)
			return txt, "[" + txt + "]", true
		}
	}
	return "", "", false
}

// value turns the tree into cty: leaves are strings, inner nodes objects.
// A reference that is both a leaf and a prefix of a longer one (rare) keeps
// the longer form.
func (n *refNode) value() cty.Value {
	if len(n.children) == 0 {
		return cty.StringVal(n.literal)
	}
	keys := make([]string, 0, len(n.children))
	for k := range n.children {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	attrs := make(map[string]cty.Value, len(keys))
	for _, k := range keys {
		attrs[k] = n.children[k].value()
	}
	return cty.ObjectVal(attrs)
}
