package acl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/hcl/ast"
	"github.com/hashicorp/hcl/hcl/token"
)

// Policy is one parsed ACL policy document.
type Policy struct {
	Namespaces  []*NamespacePolicy
	NodePools   []*NodePoolPolicy
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

// The raw shape (built from HCL1's syntax tree by hcl1.go); values are
// kept as written so semantic errors can name their line and column.
type rawPolicy struct {
	Namespaces  []*rawLabeled
	NodePools   []*rawLabeled
	HostVolumes []*rawLabeled
	Node        []*rawCoarse
	Agent       []*rawCoarse
	Operator    []*rawCoarse
	Quota       []*rawCoarse
	Plugin      []*rawCoarse
}

type rawLabeled struct {
	Name         string
	Pos          token.Pos
	Policy       rawValue
	Capabilities rawValue
	Variables    []*rawVariables
}

type rawVariables struct {
	Paths []*rawPath
}

type rawPath struct {
	Path         string
	Capabilities rawValue
}

type rawCoarse struct {
	Policy rawValue
}

// Parse parses a policy document in HCL (HCL1, as Nomad) or JSON. Errors
// name the line and column of the problem.
func Parse(rules string) (*Policy, error) {
	if len(rules) > MaxPolicySize {
		return nil, fmt.Errorf("policy is %d bytes, more than the limit of %d", len(rules), MaxPolicySize)
	}
	if strings.TrimSpace(rules) == "" {
		return nil, fmt.Errorf("policy is empty")
	}
	list, err := parseHCL1(rules)
	if err != nil {
		return nil, err
	}
	w := &walker{}
	raw := w.policy(list)
	if len(w.errs) > 0 {
		return nil, w.errs
	}
	c := &converter{}
	out := c.policy(raw)
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
	seenPool := map[string]bool{}
	for _, np := range raw.NodePools {
		if seenPool[np.Name] {
			c.errs = append(c.errs, errAtPos(np.Pos, fmt.Sprintf("node_pool %q: declared twice", np.Name)))
		}
		seenPool[np.Name] = true
		out.NodePools = append(out.NodePools, c.nodePool(np))
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
func (c *converter) oneOf(what, attr string, v rawValue, allowed ...string) string {
	s, ok := c.str(what, attr, v)
	if !ok || s == "" {
		return ""
	}
	if !slices.Contains(allowed, s) {
		c.errs = append(c.errs, errAtPos(v.node.Pos(), fmt.Sprintf("%s: %s %q is not one of %s", what, attr, s, strings.Join(allowed, ", "))))
		return ""
	}
	return s
}

func (c *converter) str(what, attr string, v rawValue) (string, bool) {
	if v.absent() {
		return "", true
	}
	s, ok := stringValue(v.node)
	if !ok {
		c.errs = append(c.errs, errAtPos(v.node.Pos(), fmt.Sprintf("%s: %s must be a string", what, attr)))
		return "", false
	}
	return s, true
}

// capabilities evaluates an optional list of capability names.
func (c *converter) capabilities(what string, v rawValue, known map[string]bool) []string {
	if v.absent() {
		return nil
	}
	list, ok := v.node.(*ast.ListType)
	caps := make([]string, 0)
	for _, el := range listElems(list) {
		s, isStr := stringValue(el)
		ok = ok && isStr
		caps = append(caps, s)
	}
	if !ok {
		c.errs = append(c.errs, errAtPos(v.node.Pos(), what+": capabilities must be a list of strings"))
		return nil
	}
	for _, cp := range caps {
		if !known[cp] {
			c.errs = append(c.errs, errAtPos(v.node.Pos(), fmt.Sprintf("%s: unknown capability %q", what, cp)))
		}
	}
	return caps
}

func listElems(l *ast.ListType) []ast.Node {
	if l == nil {
		return nil
	}
	return l.List
}
