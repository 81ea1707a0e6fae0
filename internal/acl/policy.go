package acl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
)

// Policy is one parsed ACL policy document.
type Policy struct {
	Namespaces  []*NamespacePolicy
	HostVolumes []*HostVolumePolicy
	// Coarse rules: "" when the policy has no such block.
	Node, Agent, Operator, Quota, Plugin string
}

// NamespacePolicy is one `namespace "NAME" {}` rule; Name may be a glob.
type NamespacePolicy struct {
	Name         string
	Policy       string
	Capabilities []string
	Variables    []*VariablesPathPolicy
}

// VariablesPathPolicy is one `variables { path "P" {} }` rule.
type VariablesPathPolicy struct {
	PathSpec     string
	Capabilities []string
}

// HostVolumePolicy is one `host_volume "NAME" {}` rule; Name may be a glob.
type HostVolumePolicy struct {
	Name         string
	Policy       string
	Capabilities []string
}

// MaxPolicySize bounds a policy document: policies are small, and the
// parser's cost grows with its input.
const MaxPolicySize = 64 * 1024

// The raw HCL shape; expressions are kept so semantic errors can name
// their line and column.
type rawPolicy struct {
	Namespaces  []*rawLabeled `hcl:"namespace,block"`
	HostVolumes []*rawLabeled `hcl:"host_volume,block"`
	Node        []*rawCoarse  `hcl:"node,block"`
	Agent       []*rawCoarse  `hcl:"agent,block"`
	Operator    []*rawCoarse  `hcl:"operator,block"`
	Quota       []*rawCoarse  `hcl:"quota,block"`
	Plugin      []*rawCoarse  `hcl:"plugin,block"`
}

type rawLabeled struct {
	Name         string          `hcl:"name,label"`
	Policy       hcl.Expression  `hcl:"policy,optional"`
	Capabilities hcl.Expression  `hcl:"capabilities,optional"`
	Variables    []*rawVariables `hcl:"variables,block"`
}

type rawVariables struct {
	Paths []*rawPath `hcl:"path,block"`
}

type rawPath struct {
	Path         string         `hcl:"path,label"`
	Capabilities hcl.Expression `hcl:"capabilities,optional"`
}

type rawCoarse struct {
	Policy hcl.Expression `hcl:"policy,optional"`
}

// Parse parses a policy document in HCL or JSON. Errors name the line
// and column of the problem.
func Parse(rules string) (*Policy, error) {
	if len(rules) > MaxPolicySize {
		return nil, fmt.Errorf("policy is %d bytes, more than the limit of %d", len(rules), MaxPolicySize)
	}
	if strings.TrimSpace(rules) == "" {
		return nil, fmt.Errorf("policy is empty")
	}
	p := hclparse.NewParser()
	var file *hcl.File
	var diags hcl.Diagnostics
	if strings.HasPrefix(strings.TrimSpace(rules), "{") {
		file, diags = p.ParseJSON([]byte(rules), "policy.json")
	} else {
		file, diags = p.ParseHCL([]byte(rules), "policy.hcl")
	}
	if diags.HasErrors() {
		return nil, diagError(diags)
	}
	var raw rawPolicy
	if diags := gohcl.DecodeBody(file.Body, nil, &raw); diags.HasErrors() {
		return nil, diagError(diags)
	}
	c := &converter{}
	out := c.policy(&raw)
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return out, nil
}

// converter turns the raw shape into a Policy, collecting every error.
type converter struct{ errs ParseErrors }

func (c *converter) policy(raw *rawPolicy) *Policy {
	out := &Policy{}
	seenNS := map[string]bool{}
	for _, ns := range raw.Namespaces {
		if seenNS[ns.Name] {
			c.errs = append(c.errs, &ParseError{Msg: fmt.Sprintf("namespace %q: declared twice", ns.Name)})
		}
		seenNS[ns.Name] = true
		out.Namespaces = append(out.Namespaces, c.namespace(ns))
	}
	for _, hv := range raw.HostVolumes {
		out.HostVolumes = append(out.HostVolumes, c.hostVolume(hv))
	}
	out.Node = c.coarse("node", raw.Node, PolicyDeny, PolicyRead, PolicyWrite)
	out.Agent = c.coarse("agent", raw.Agent, PolicyDeny, PolicyRead, PolicyWrite)
	out.Operator = c.coarse("operator", raw.Operator, PolicyDeny, PolicyRead, PolicyWrite)
	out.Quota = c.coarse("quota", raw.Quota, PolicyDeny, PolicyRead, PolicyWrite)
	out.Plugin = c.coarse("plugin", raw.Plugin, PolicyDeny, PolicyList, PolicyRead, PolicyWrite)
	return out
}

func (c *converter) namespace(raw *rawLabeled) *NamespacePolicy {
	what := fmt.Sprintf("namespace %q", raw.Name)
	ns := &NamespacePolicy{Name: raw.Name}
	ns.Policy = c.oneOf(what, "policy", raw.Policy, PolicyDeny, PolicyRead, PolicyWrite, PolicyScale, PolicyList)
	ns.Capabilities = c.capabilities(what, raw.Capabilities, namespaceCapabilities)
	if len(raw.Variables) > 1 {
		c.errs = append(c.errs, &ParseError{Msg: what + ": more than one variables block"})
	}
	for _, v := range raw.Variables {
		for _, p := range v.Paths {
			pw := fmt.Sprintf("%s: variables path %q", what, p.Path)
			caps := c.capabilities(pw, p.Capabilities, variablesCapabilities)
			ns.Variables = append(ns.Variables, &VariablesPathPolicy{PathSpec: p.Path, Capabilities: caps})
		}
	}
	if ns.Name == "" {
		c.errs = append(c.errs, &ParseError{Msg: "namespace: the name label is empty"})
	}
	return ns
}

func (c *converter) hostVolume(raw *rawLabeled) *HostVolumePolicy {
	what := fmt.Sprintf("host_volume %q", raw.Name)
	if len(raw.Variables) > 0 {
		c.errs = append(c.errs, &ParseError{Msg: what + ": variables belong in a namespace block"})
	}
	return &HostVolumePolicy{
		Name:         raw.Name,
		Policy:       c.oneOf(what, "policy", raw.Policy, PolicyDeny, PolicyRead, PolicyWrite),
		Capabilities: c.capabilities(what, raw.Capabilities, hostVolumeCapabilities),
	}
}

// coarse reads a node/agent/operator/quota/plugin block; a policy may hold
// at most one of each.
func (c *converter) coarse(block string, raws []*rawCoarse, allowed ...string) string {
	if len(raws) == 0 {
		return ""
	}
	if len(raws) > 1 {
		c.errs = append(c.errs, &ParseError{Msg: block + ": declared more than once"})
	}
	v := c.oneOf(block, "policy", raws[0].Policy, allowed...)
	if v == "" && !c.hasErrors() {
		c.errs = append(c.errs, &ParseError{Msg: block + ": policy is required"})
	}
	return v
}

func (c *converter) hasErrors() bool { return len(c.errs) > 0 }

// oneOf evaluates an optional string attribute that must be one of allowed.
func (c *converter) oneOf(what, attr string, expr hcl.Expression, allowed ...string) string {
	s, ok := c.str(what, attr, expr)
	if !ok || s == "" {
		return ""
	}
	if !slices.Contains(allowed, s) {
		c.errs = append(c.errs, errAt(expr.Range(), fmt.Sprintf("%s: %s %q is not one of %s", what, attr, s, strings.Join(allowed, ", "))))
		return ""
	}
	return s
}

func (c *converter) str(what, attr string, expr hcl.Expression) (string, bool) {
	if expr == nil || isNull(expr) {
		return "", true
	}
	var s string
	if diags := gohcl.DecodeExpression(expr, nil, &s); diags.HasErrors() {
		c.errs = append(c.errs, errAt(expr.Range(), fmt.Sprintf("%s: %s must be a string", what, attr)))
		return "", false
	}
	return s, true
}

// capabilities evaluates an optional list of capability names.
func (c *converter) capabilities(what string, expr hcl.Expression, known map[string]bool) []string {
	if expr == nil || isNull(expr) {
		return nil
	}
	var caps []string
	if diags := gohcl.DecodeExpression(expr, nil, &caps); diags.HasErrors() {
		c.errs = append(c.errs, errAt(expr.Range(), what+": capabilities must be a list of strings"))
		return nil
	}
	for _, cp := range caps {
		if !known[cp] {
			c.errs = append(c.errs, errAt(expr.Range(), fmt.Sprintf("%s: unknown capability %q", what, cp)))
		}
	}
	return caps
}

// isNull reports whether an optional attribute was left out (gohcl hands
// a synthetic null expression for absent attributes).
func isNull(expr hcl.Expression) bool {
	v, diags := expr.Value(nil)
	return !diags.HasErrors() && v.IsNull()
}
