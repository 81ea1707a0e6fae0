package acl

import (
	"fmt"
	"regexp"
	"strings"
)

// Node pool rules (Nomad 1.6+): `node_pool "GLOB" { policy capabilities }`.
// Every capability maps to a NodePool.* method of the server: read
// (NodePool.List shows only readable pools, Get, Jobs, and Nodes with
// node read too), write (Upsert), delete (Delete).

// Node pool capabilities, Nomad's names.
const (
	NodePoolCapabilityDeny   = "deny"
	NodePoolCapabilityRead   = "read"
	NodePoolCapabilityWrite  = "write"
	NodePoolCapabilityDelete = "delete"
)

var nodePoolCapabilities = set(NodePoolCapabilityDeny, NodePoolCapabilityRead, NodePoolCapabilityWrite, NodePoolCapabilityDelete)

// validNodePoolRule is what Nomad accepts as a node_pool label.
var validNodePoolRule = regexp.MustCompile(`^[a-zA-Z0-9-_*]{1,128}$`)

// NodePoolPolicy is one `node_pool "NAME" {}` rule; Name may be a glob.
type NodePoolPolicy struct {
	Name         string
	Policy       string
	Capabilities []string
}

func (c *converter) nodePool(raw *rawLabeled) *NodePoolPolicy {
	what := fmt.Sprintf("node_pool %q", raw.Name)
	if !validNodePoolRule.MatchString(raw.Name) {
		c.errs = append(c.errs, errAtPos(raw.Pos, what+": the name must be 1-128 letters, digits, '-', '_' or '*'"))
	}
	return &NodePoolPolicy{
		Name:         raw.Name,
		Policy:       c.oneOf(what, "policy", raw.Policy, PolicyDeny, PolicyRead, PolicyWrite),
		Capabilities: c.capabilities(what, raw.Capabilities, nodePoolCapabilities),
	}
}

// expandNodePoolPolicy lists the capabilities a node_pool disposition
// grants.
func expandNodePoolPolicy(policy string) []string {
	switch policy {
	case PolicyDeny:
		return []string{NodePoolCapabilityDeny}
	case PolicyRead:
		return []string{NodePoolCapabilityRead}
	case PolicyWrite:
		return []string{NodePoolCapabilityRead, NodePoolCapabilityWrite, NodePoolCapabilityDelete}
	}
	return nil
}

// mergeGlobbed adds the capabilities of a rule named name to the exact
// or glob rules of an ACL being built (host volumes, node pools).
func mergeGlobbed(exact, wild map[string]capSet, name string, caps ...[]string) {
	target := exact
	if strings.Contains(name, "*") {
		target = wild
	}
	set := target[name]
	if set == nil {
		set = capSet{}
		target[name] = set
	}
	for _, c := range caps {
		set.add(c...)
	}
}

// AllowNodePoolOperation reports whether op (a node pool capability) is
// allowed on pool name: its exact rule, else the closest glob.
func (a *ACL) AllowNodePoolOperation(name, op string) bool {
	return a.management || globbedCaps(a.nodePools, a.wildcardNodePools, name).allows(op)
}
