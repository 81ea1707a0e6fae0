package scheduler

import (
	"strconv"
	"strings"
)

// version is a parsed dotted version such as "1.2.3-beta.1+build". It
// accepts an optional leading "v" and any number of numeric segments, so
// both the loose `version` operator and the strict `semver` one can use it.
type version struct {
	segments []int64
	pre      string // prerelease, without the "-"
}

// parseVersion parses s; ok is false when s is not a version.
func parseVersion(s string) (version, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i] // build metadata never affects ordering
	}
	var v version
	if i := strings.IndexByte(s, '-'); i >= 0 {
		v.pre, s = s[i+1:], s[:i]
		if v.pre == "" {
			return version{}, false
		}
	}
	if s == "" {
		return version{}, false
	}
	for _, part := range strings.Split(s, ".") {
		n, err := strconv.ParseInt(part, 10, 64)
		if err != nil || n < 0 {
			return version{}, false
		}
		v.segments = append(v.segments, n)
	}
	return v, true
}

// segment returns the i-th numeric segment, 0 past the end ("1.2" == "1.2.0").
func (v version) segment(i int) int64 {
	if i < len(v.segments) {
		return v.segments[i]
	}
	return 0
}

// compare orders versions as semver does: numerically by segment, then a
// prerelease sorts before the release it precedes.
func (v version) compare(o version) int {
	n := max(len(v.segments), len(o.segments))
	for i := 0; i < n; i++ {
		if a, b := v.segment(i), o.segment(i); a != b {
			if a < b {
				return -1
			}
			return 1
		}
	}
	return comparePrerelease(v.pre, o.pre)
}

func comparePrerelease(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == "":
		return 1
	case b == "":
		return -1
	}
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < min(len(pa), len(pb)); i++ {
		if c := comparePreIdent(pa[i], pb[i]); c != 0 {
			return c
		}
	}
	return cmpInt(len(pa), len(pb))
}

// comparePreIdent orders prerelease identifiers: numeric ones numerically
// and before alphanumeric ones, which compare as strings.
func comparePreIdent(a, b string) int {
	na, ea := strconv.ParseInt(a, 10, 64)
	nb, eb := strconv.ParseInt(b, 10, 64)
	switch {
	case ea == nil && eb == nil:
		return cmpInt(na, nb)
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func cmpInt[T int | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// versionTerm is one comparison of a version constraint, e.g. ">= 1.2".
type versionTerm struct {
	op string
	v  version
}

// versionConstraint is a comma-separated conjunction of terms. strict
// (semver) lets prereleases satisfy ordinary terms; the loose `version`
// operator, like go-version, only lets a prerelease match a term that
// names a prerelease of the same release.
type versionConstraint struct {
	terms  []versionTerm
	strict bool
}

var versionOps = []string{">=", "<=", "!=", "~>", "=", ">", "<"}

// parseVersionConstraint parses e.g. ">= 1.2.0, < 2.0".
func parseVersionConstraint(s string, strict bool) (*versionConstraint, bool) {
	c := &versionConstraint{strict: strict}
	for _, raw := range strings.Split(s, ",") {
		raw = strings.TrimSpace(raw)
		op := "="
		for _, candidate := range versionOps {
			if strings.HasPrefix(raw, candidate) {
				op, raw = candidate, strings.TrimSpace(raw[len(candidate):])
				break
			}
		}
		v, ok := parseVersion(raw)
		if !ok {
			return nil, false
		}
		c.terms = append(c.terms, versionTerm{op: op, v: v})
	}
	return c, len(c.terms) > 0
}

// check reports whether v satisfies every term.
func (c *versionConstraint) check(v version) bool {
	for _, t := range c.terms {
		if !c.strict && v.pre != "" && !samePrereleaseBase(t.v, v) {
			return false
		}
		if !t.check(v) {
			return false
		}
	}
	return true
}

func samePrereleaseBase(t, v version) bool {
	if t.pre == "" {
		return false
	}
	n := max(len(t.segments), len(v.segments))
	for i := 0; i < n; i++ {
		if t.segment(i) != v.segment(i) {
			return false
		}
	}
	return true
}

func (t versionTerm) check(v version) bool {
	c := v.compare(t.v)
	switch t.op {
	case "=":
		return c == 0
	case "!=":
		return c != 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case "~>":
		return c >= 0 && pessimisticUpper(t.v, v)
	}
	return false
}

// pessimisticUpper checks the upper bound of "~> X.Y.Z": every segment but
// the last one written must match (~> 1.2.3 allows 1.2.x, ~> 1.2 allows 1.x).
func pessimisticUpper(t, v version) bool {
	fixed := len(t.segments) - 1
	if fixed == 0 {
		fixed = 1
	}
	for i := 0; i < fixed; i++ {
		if v.segment(i) != t.segment(i) {
			return false
		}
	}
	return true
}
