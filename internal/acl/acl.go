package acl

import (
	"slices"
	"sort"
	"strings"
)

// ACL is what a token may do: its policies merged. It is immutable and
// safe to share between requests.
type ACL struct {
	management bool

	// Namespace and host volume rules by exact name, and glob rules
	// (names with '*') apart, matched by Nomad's closest-match rule.
	namespaces         map[string]*nsRule
	wildcardNamespaces []*nsRule
	hostVolumes        map[string]capSet
	wildcardVolumes    []globCaps
	nodePools          map[string]capSet
	wildcardNodePools  []globCaps

	node, agent, operator, quota, plugin string
}

type capSet map[string]bool

// nsRule is the merged rule of one namespace name or glob.
type nsRule struct {
	name      string
	caps      capSet
	variables map[string]capSet // by path glob
}

type globCaps struct {
	pattern string
	caps    capSet
}

// ManagementACL may do everything.
var ManagementACL = &ACL{management: true}

// DenyAll may do nothing: an ACL compiled from no policy.
var DenyAll = mustNew(nil)

func mustNew(policies []*Policy) *ACL {
	a, err := New(policies)
	if err != nil {
		panic(err)
	}
	return a
}

// New merges policies into an ACL. Where several policies cover the same
// namespace (or block), deny wins, otherwise the grants add up.
func New(policies []*Policy) (*ACL, error) {
	a := &ACL{namespaces: map[string]*nsRule{}, hostVolumes: map[string]capSet{}, nodePools: map[string]capSet{}}
	wildNS := map[string]*nsRule{}
	wildHV := map[string]capSet{}
	wildPools := map[string]capSet{}
	for _, p := range policies {
		for _, ns := range p.Namespaces {
			target := a.namespaces
			if strings.Contains(ns.Name, "*") {
				target = wildNS
			}
			mergeNamespace(target, ns)
		}
		for _, hv := range p.HostVolumes {
			mergeGlobbed(a.hostVolumes, wildHV, hv.Name, expandHostVolumePolicy(hv.Policy), hv.Capabilities)
		}
		for _, np := range p.NodePools {
			mergeGlobbed(a.nodePools, wildPools, np.Name, expandNodePoolPolicy(np.Policy), np.Capabilities)
		}
		a.node = mergeCoarse(a.node, p.Node)
		a.agent = mergeCoarse(a.agent, p.Agent)
		a.operator = mergeCoarse(a.operator, p.Operator)
		a.quota = mergeCoarse(a.quota, p.Quota)
		a.plugin = mergeCoarse(a.plugin, p.Plugin)
	}
	for _, r := range wildNS {
		a.wildcardNamespaces = append(a.wildcardNamespaces, r)
	}
	sort.Slice(a.wildcardNamespaces, func(i, j int) bool { return a.wildcardNamespaces[i].name < a.wildcardNamespaces[j].name })
	for name, caps := range wildHV {
		a.wildcardVolumes = append(a.wildcardVolumes, globCaps{name, caps})
	}
	sort.Slice(a.wildcardVolumes, func(i, j int) bool { return a.wildcardVolumes[i].pattern < a.wildcardVolumes[j].pattern })
	for name, caps := range wildPools {
		a.wildcardNodePools = append(a.wildcardNodePools, globCaps{name, caps})
	}
	sort.Slice(a.wildcardNodePools, func(i, j int) bool { return a.wildcardNodePools[i].pattern < a.wildcardNodePools[j].pattern })
	return a, nil
}

func mergeNamespace(target map[string]*nsRule, ns *NamespacePolicy) {
	r := target[ns.Name]
	if r == nil {
		r = &nsRule{name: ns.Name, caps: capSet{}, variables: map[string]capSet{}}
		target[ns.Name] = r
	}
	r.caps.add(expandNamespacePolicy(ns.Policy)...)
	r.caps.add(ns.Capabilities...)
	// A namespace's policy and capabilities grant no variable: as in
	// Nomad, variables are reached only through the namespace's variables
	// block, path by path.
	for _, v := range ns.Variables {
		r.variable(v.PathSpec).add(expandVariablesCapabilities(v.Capabilities)...)
	}
}

func (r *nsRule) variable(path string) capSet {
	c := r.variables[path]
	if c == nil {
		c = capSet{}
		r.variables[path] = c
	}
	return c
}

func (c capSet) add(caps ...string) {
	for _, cp := range caps {
		c[cp] = true
	}
}

// allows reports whether the set grants op; "deny" overrides all grants.
func (c capSet) allows(op string) bool {
	return c != nil && !c["deny"] && c[op]
}

// any reports whether the set grants anything at all.
func (c capSet) any() bool {
	if c == nil || c["deny"] {
		return false
	}
	return len(c) > 0
}

// coarseRank orders dispositions: deny overrides everything, then the
// strongest grant wins.
var coarseRank = map[string]int{"": 0, PolicyList: 1, PolicyRead: 2, PolicyWrite: 3, PolicyDeny: 4}

func mergeCoarse(cur, next string) string {
	if coarseRank[next] > coarseRank[cur] {
		return next
	}
	return cur
}

// IsManagement reports whether this is a management ACL.
func (a *ACL) IsManagement() bool { return a.management }

// AllowNamespaceOperation reports whether op (a namespace capability) is
// allowed in namespace ns.
func (a *ACL) AllowNamespaceOperation(ns, op string) bool {
	if a.management {
		return true
	}
	r := a.namespaceRule(ns)
	return r != nil && r.caps.allows(op)
}

// AllowNamespace reports whether any capability is granted in ns (enough
// to see the namespace exist).
func (a *ACL) AllowNamespace(ns string) bool {
	if a.management {
		return true
	}
	r := a.namespaceRule(ns)
	return r != nil && r.caps.any()
}

// AllowVariableOperation reports whether op (a variables capability) is
// allowed on the variable at path in namespace ns. The longest matching
// path glob decides.
func (a *ACL) AllowVariableOperation(ns, path, op string) bool {
	if a.management {
		return true
	}
	r := a.namespaceRule(ns)
	if r == nil {
		return false
	}
	best, bestLen := capSet(nil), -1
	for spec, caps := range r.variables {
		if globMatch(spec, path) && literalLen(spec) > bestLen {
			best, bestLen = caps, literalLen(spec)
		}
	}
	return best.allows(op)
}

// namespaceRule is the rule for ns: its exact rule, else the closest glob.
func (a *ACL) namespaceRule(ns string) *nsRule {
	if r, ok := a.namespaces[ns]; ok {
		return r
	}
	var best *nsRule
	bestDiff := -1
	for _, r := range a.wildcardNamespaces {
		if !globMatch(r.name, ns) {
			continue
		}
		if d := len(ns) - literalLen(r.name); best == nil || d < bestDiff {
			best, bestDiff = r, d
		}
	}
	return best
}

// AllowHostVolumeOperation reports whether op is allowed on host volume name.
func (a *ACL) AllowHostVolumeOperation(name, op string) bool {
	return a.management || globbedCaps(a.hostVolumes, a.wildcardVolumes, name).allows(op)
}

// globbedCaps is the capability set of name: its exact rule, else the
// closest glob (the one with the fewest characters beyond its literal
// part), as Nomad matches host volume and node pool rules.
func globbedCaps(exact map[string]capSet, globs []globCaps, name string) capSet {
	if caps, ok := exact[name]; ok {
		return caps
	}
	var best capSet
	bestDiff := -1
	for _, g := range globs {
		if !globMatch(g.pattern, name) {
			continue
		}
		if d := len(name) - literalLen(g.pattern); best == nil || d < bestDiff {
			best, bestDiff = g.caps, d
		}
	}
	return best
}

func (a *ACL) allowCoarse(disposition string, write bool) bool {
	if a.management {
		return true
	}
	switch disposition {
	case PolicyWrite:
		return true
	case PolicyRead:
		return !write
	}
	return false
}

// AllowNodeRead reports whether node objects may be read.
func (a *ACL) AllowNodeRead() bool { return a.allowCoarse(a.node, false) }

// AllowNodeWrite reports whether nodes may be changed (drain, eligibility).
func (a *ACL) AllowNodeWrite() bool { return a.allowCoarse(a.node, true) }

// AllowAgentRead reports whether agent information may be read.
func (a *ACL) AllowAgentRead() bool { return a.allowCoarse(a.agent, false) }

// AllowAgentWrite reports whether the agent may be changed.
func (a *ACL) AllowAgentWrite() bool { return a.allowCoarse(a.agent, true) }

// AllowOperatorRead reports whether cluster-level operator state may be read.
func (a *ACL) AllowOperatorRead() bool { return a.allowCoarse(a.operator, false) }

// AllowOperatorWrite reports whether cluster-level operator state may be changed.
func (a *ACL) AllowOperatorWrite() bool { return a.allowCoarse(a.operator, true) }

// AllowQuotaRead reports whether quotas may be read.
func (a *ACL) AllowQuotaRead() bool { return a.allowCoarse(a.quota, false) }

// AllowQuotaWrite reports whether quotas may be changed.
func (a *ACL) AllowQuotaWrite() bool { return a.allowCoarse(a.quota, true) }

// AllowPluginRead reports whether plugins may be read in detail.
func (a *ACL) AllowPluginRead() bool { return a.allowCoarse(a.plugin, false) }

// AllowPluginList reports whether plugins may be listed.
func (a *ACL) AllowPluginList() bool {
	return a.management || a.plugin == PolicyList || a.AllowPluginRead()
}

// globMatch matches name against a pattern where '*' stands for any run
// of characters (Nomad's namespace and host volume globs).
func globMatch(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	rest := name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, mid)
		if i < 0 {
			return false
		}
		rest = rest[i+len(mid):]
	}
	return len(rest) >= len(last) && strings.HasSuffix(rest, last)
}

// literalLen is the number of non-wildcard characters of a glob: the
// closest match leaves the fewest characters to its wildcards.
func literalLen(pattern string) int { return len(pattern) - strings.Count(pattern, "*") }

// Capabilities lists the capabilities granted in ns, sorted (for display
// and tests).
func (a *ACL) Capabilities(ns string) []string {
	r := a.namespaceRule(ns)
	if r == nil {
		return nil
	}
	out := make([]string, 0, len(r.caps))
	for c := range r.caps {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
