package acl

import (
	"slices"
	"strconv"
	"strings"
)

// NamespaceOperationElsewhere describes where op is allowed among the
// namespaces outside known: "" on none, "*" on every one, else a text
// of the rules that decide there (each exact rule naming a namespace
// outside known, and every glob rule, with whether it grants op). Two
// ACLs with the same description allow op on exactly the same names
// outside known, so, with the names they allow in known, it stands for
// AllowNamespaceOperation(·, op) as a whole (the agent's reply cache
// keys an ACL-limited caller's listing by it).
func (a *ACL) NamespaceOperationElsewhere(known func(string) bool, op string) string {
	if a.management {
		return "*"
	}
	var exact []string
	grants, denies, matchAll := 0, 0, false
	for name, r := range a.namespaces {
		if known(name) {
			continue
		}
		ok := r.caps.allows(op)
		if ok {
			grants++
		} else {
			denies++
		}
		exact = append(exact, strconv.Quote(name)+"="+strconv.FormatBool(ok))
	}
	slices.Sort(exact)
	globs := make([]string, 0, len(a.wildcardNamespaces))
	for _, r := range a.wildcardNamespaces { // sorted by name: the ties' order
		ok := r.caps.allows(op)
		if ok {
			grants++
		} else {
			denies++
		}
		if literalLen(r.name) == 0 {
			matchAll = true
		}
		globs = append(globs, strconv.Quote(r.name)+"="+strconv.FormatBool(ok))
	}
	switch {
	case grants == 0:
		// No rule that could decide outside known grants op.
		return ""
	case denies == 0 && matchAll:
		// A name outside known is decided by its exact rule, else by
		// the closest glob, and a glob of only '*'s matches every name:
		// each grants op.
		return "*"
	}
	return "exact{" + strings.Join(exact, ",") + "} glob{" + strings.Join(globs, ",") + "}"
}
