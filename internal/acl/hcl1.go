package acl

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/hcl/ast"
	hclparser "github.com/hashicorp/hcl/hcl/parser"
	"github.com/hashicorp/hcl/hcl/token"
	jsonparser "github.com/hashicorp/hcl/json/parser"
)

// Policies are HCL1, as Nomad parses them (hashicorp/hcl v1, the version
// Nomad pins): besides `namespace "a" { ... }` blocks it accepts
// unquoted labels (`namespace a { }`), object assignments (`node = {
// policy = "read" }`, `namespace = { a = { ... } }`), nested labels
// (`namespace { a { ... } }`), keys in any letter case, heredocs, and
// JSON in all the shapes HCL1 reads (objects or arrays of objects at
// every level). The walker below turns that syntax tree into the raw
// shape. Where Drover differs on purpose: Nomad's decoder silently drops
// keys it does not know and keeps the last of repeated attributes or
// coarse blocks; Drover refuses both, naming the key, since a policy it
// would not act on as written must not be stored.

// rawValue is an attribute's value as written; node is nil when the
// attribute is absent.
type rawValue struct{ node ast.Node }

func (v rawValue) absent() bool { return v.node == nil }

// parseHCL1 parses a policy into HCL1's syntax tree, HCL or JSON as the
// first character says (as HCL1 decides).
func parseHCL1(rules string) (list *ast.ObjectList, err error) {
	defer func() {
		// HCL1 panics on some malformed input; Nomad recovers too.
		if r := recover(); r != nil {
			list, err = nil, ParseErrors{{Msg: fmt.Sprintf("invalid policy: %v", r)}}
		}
	}()
	var f *ast.File
	if isJSON(rules) {
		f, err = jsonparser.Parse([]byte(rules))
	} else {
		f, err = hclparser.ParseDontErrorOnDuplicateKeys([]byte(rules))
	}
	if err != nil {
		return nil, syntaxError(err)
	}
	list, ok := f.Node.(*ast.ObjectList)
	if !ok {
		return nil, ParseErrors{{Msg: "policy: the document must be an object"}}
	}
	return list, nil
}

func isJSON(rules string) bool {
	for _, r := range rules {
		if unicode.IsSpace(r) {
			continue
		}
		return r == '{'
	}
	return false
}

// syntaxError turns an HCL1 parse error into a ParseError with its
// position.
func syntaxError(err error) error {
	var pe *hclparser.PosError
	if errors.As(err, &pe) {
		return ParseErrors{{Line: pe.Pos.Line, Column: pe.Pos.Column, Msg: pe.Err.Error()}}
	}
	return ParseErrors{{Msg: err.Error()}}
}

func errAtPos(p token.Pos, msg string) *ParseError {
	return &ParseError{Line: p.Line, Column: p.Column, Msg: msg}
}

// walker builds the raw shape from the syntax tree, collecting errors.
type walker struct{ errs ParseErrors }

func (w *walker) fail(p token.Pos, format string, args ...any) {
	w.errs = append(w.errs, errAtPos(p, fmt.Sprintf(format, args...)))
}

func keyName(k *ast.ObjectKey) string {
	if s, ok := k.Token.Value().(string); ok {
		return s
	}
	return k.Token.Text
}

const knownBlocks = "namespace, node_pool, host_volume, node, agent, operator, quota or plugin"

func (w *walker) policy(list *ast.ObjectList) *rawPolicy {
	raw := &rawPolicy{}
	for _, item := range list.Items {
		if len(item.Keys) == 0 {
			w.fail(item.Pos(), "a rule needs a block name (%s)", knownBlocks)
			continue
		}
		name := keyName(item.Keys[0])
		switch strings.ToLower(name) {
		case "namespace":
			raw.Namespaces = append(raw.Namespaces, w.labeledRules("namespace", item, "policy", "capabilities", "variables")...)
		case "node_pool":
			raw.NodePools = append(raw.NodePools, w.labeledRules("node_pool", item, "policy", "capabilities")...)
		case "host_volume":
			raw.HostVolumes = append(raw.HostVolumes, w.labeledRules("host_volume", item, "policy", "capabilities")...)
		case "node":
			raw.Node = append(raw.Node, w.coarseRule("node", item))
		case "agent":
			raw.Agent = append(raw.Agent, w.coarseRule("agent", item))
		case "operator":
			raw.Operator = append(raw.Operator, w.coarseRule("operator", item))
		case "quota":
			raw.Quota = append(raw.Quota, w.coarseRule("quota", item))
		case "plugin":
			raw.Plugin = append(raw.Plugin, w.coarseRule("plugin", item))
		default:
			w.fail(item.Keys[0].Pos(), "unknown block %q (want %s)", name, knownBlocks)
		}
	}
	return raw
}

// labeled is one rule with a name label and its body.
type labeled struct {
	label string
	pos   token.Pos
	body  *ast.ObjectList
}

// labeledItems reads `kind "L" { }` (item's keys after kind hold the
// label) and `kind { L { } }` / `kind = { L = { } }` / JSON's arrays of
// those (no label key: the value holds the labelled bodies).
func (w *walker) labeledItems(kind string, item *ast.ObjectItem) []labeled {
	labels := item.Keys[1:]
	if len(labels) > 0 {
		if len(labels) > 1 {
			w.fail(labels[1].Pos(), "%s %q: a rule takes one label, not also %q", kind, keyName(labels[0]), keyName(labels[1]))
			return nil
		}
		what := fmt.Sprintf("%s %q", kind, keyName(labels[0]))
		body, ok := w.body(what, item.Val)
		if !ok {
			return nil
		}
		return []labeled{{label: keyName(labels[0]), pos: labels[0].Pos(), body: body}}
	}
	var out []labeled
	for _, obj := range w.objects(kind, item.Val) {
		for _, it := range obj.Items {
			if len(it.Keys) != 1 {
				w.fail(it.Pos(), "%s: each rule takes one name label: %s \"NAME\" { ... }", kind, kind)
				continue
			}
			what := fmt.Sprintf("%s %q", kind, keyName(it.Keys[0]))
			if _, isObj := unwrapObject(it.Val); !isObj {
				w.fail(it.Pos(), "%s: a rule needs a name label: %s \"NAME\" { ... }", kind, kind)
				continue
			}
			body, ok := w.body(what, it.Val)
			if ok {
				out = append(out, labeled{label: keyName(it.Keys[0]), pos: it.Keys[0].Pos(), body: body})
			}
		}
	}
	return out
}

// objects are the object values of a node: an object, or an array of
// objects (JSON).
func (w *walker) objects(what string, n ast.Node) []*ast.ObjectList {
	switch v := n.(type) {
	case *ast.ObjectType:
		return []*ast.ObjectList{v.List}
	case *ast.ListType:
		var out []*ast.ObjectList
		for _, el := range v.List {
			ot, ok := el.(*ast.ObjectType)
			if !ok {
				w.fail(el.Pos(), "%s: want a block { ... }", what)
				continue
			}
			out = append(out, ot.List)
		}
		return out
	}
	w.fail(n.Pos(), "%s: want a block { ... }", what)
	return nil
}

// unwrapObject is an object value, or the only object of an array
// (JSON's [{...}]).
func unwrapObject(n ast.Node) (*ast.ObjectList, bool) {
	switch v := n.(type) {
	case *ast.ObjectType:
		return v.List, true
	case *ast.ListType:
		if len(v.List) == 1 {
			if ot, ok := v.List[0].(*ast.ObjectType); ok {
				return ot.List, true
			}
		}
	}
	return nil, false
}

// body is a rule's body: one object.
func (w *walker) body(what string, n ast.Node) (*ast.ObjectList, bool) {
	body, ok := unwrapObject(n)
	if !ok {
		w.fail(n.Pos(), "%s: want one block { ... }", what)
	}
	return body, ok
}

// attributes indexes a body's keys (lower case) and refuses a key not in
// allowed, a key given twice, and labels where none belong.
func (w *walker) attributes(what string, body *ast.ObjectList, allowed ...string) map[string]*ast.ObjectItem {
	out := map[string]*ast.ObjectItem{}
	for _, it := range body.Items {
		if len(it.Keys) == 0 {
			continue
		}
		name := keyName(it.Keys[0])
		key := strings.ToLower(name)
		known := false
		for _, a := range allowed {
			known = known || a == key
		}
		switch {
		case !known:
			w.fail(it.Keys[0].Pos(), "%s: unknown key %q (want %s)", what, name, strings.Join(allowed, ", "))
		case len(it.Keys) > 1:
			w.fail(it.Keys[1].Pos(), "%s: %s takes no label", what, name)
		case out[key] != nil:
			w.fail(it.Keys[0].Pos(), "%s: %s declared twice", what, name)
		default:
			out[key] = it
		}
	}
	return out
}

func valueOf(attrs map[string]*ast.ObjectItem, key string) rawValue {
	if it := attrs[key]; it != nil {
		return rawValue{node: it.Val}
	}
	return rawValue{}
}

func (w *walker) labeledRules(kind string, item *ast.ObjectItem, allowed ...string) []*rawLabeled {
	var out []*rawLabeled
	for _, l := range w.labeledItems(kind, item) {
		what := fmt.Sprintf("%s %q", kind, l.label)
		attrs := w.attributes(what, l.body, allowed...)
		r := &rawLabeled{Name: l.label, Pos: l.pos, Policy: valueOf(attrs, "policy"), Capabilities: valueOf(attrs, "capabilities")}
		if v := attrs["variables"]; v != nil {
			r.Variables = append(r.Variables, w.variables(what, v))
		}
		out = append(out, r)
	}
	return out
}

func (w *walker) variables(what string, item *ast.ObjectItem) *rawVariables {
	out := &rawVariables{}
	body, ok := w.body(what+": variables", item.Val)
	if !ok {
		return out
	}
	for _, it := range body.Items {
		if len(it.Keys) == 0 || !strings.EqualFold(keyName(it.Keys[0]), "path") {
			if len(it.Keys) > 0 {
				w.fail(it.Keys[0].Pos(), "%s: variables: unknown key %q (want path)", what, keyName(it.Keys[0]))
			}
			continue
		}
		for _, l := range w.labeledItems(what+": variables path", it) {
			attrs := w.attributes(fmt.Sprintf("%s: variables path %q", what, l.label), l.body, "capabilities")
			out.Paths = append(out.Paths, &rawPath{Path: l.label, Capabilities: valueOf(attrs, "capabilities")})
		}
	}
	return out
}

func (w *walker) coarseRule(kind string, item *ast.ObjectItem) *rawCoarse {
	if len(item.Keys) > 1 {
		w.fail(item.Keys[1].Pos(), "%s: takes no label", kind)
		return &rawCoarse{}
	}
	body, ok := w.body(kind, item.Val)
	if !ok {
		return &rawCoarse{}
	}
	return &rawCoarse{Policy: valueOf(w.attributes(kind, body, "policy"), "policy")}
}

// stringValue is a string literal's value.
func stringValue(n ast.Node) (string, bool) {
	lit, ok := n.(*ast.LiteralType)
	if !ok || (lit.Token.Type != token.STRING && lit.Token.Type != token.HEREDOC) {
		return "", false
	}
	s, ok := lit.Token.Value().(string)
	return s, ok
}
