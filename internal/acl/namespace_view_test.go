package acl

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNamespaceOperationElsewhere_StandsForTheACL: for random ACLs over
// a small alphabet of names and globs, two ACLs that allow op on the
// same known names and have the same description elsewhere decide alike
// on every name; "" denies every name outside known and "*" allows them
// all. Broken variants seen failing: the description without its glob
// rules; "*" whenever every rule grants (without a match-all glob); the
// exact rules that deny left out of it.
func TestNamespaceOperationElsewhere_StandsForTheACL(t *testing.T) {
	names := []string{"a", "b", "ab", "ba", "prod", "pr", "prx", "default", "x", "aab"}
	globs := []string{"*", "**", "a*", "*b", "p*d", "pr*", "*a*"}
	policies := []string{"read", "deny", "list", "write", ""}
	const op = NamespaceCapabilityReadJob
	rng := rand.New(rand.NewPCG(1, 2))
	randomACL := func() *ACL {
		var p Policy
		for range rng.IntN(5) {
			pool := names
			if rng.IntN(2) == 0 {
				pool = globs
			}
			np := &NamespacePolicy{Name: pool[rng.IntN(len(pool))], Policy: policies[rng.IntN(len(policies))]}
			if np.Policy == "" {
				np.Capabilities = []string{NamespaceCapabilityListJobs}
			}
			p.Namespaces = append(p.Namespaces, np)
		}
		a, err := New([]*Policy{&p})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	type view struct{ inside, elsewhere string }
	viewOf := func(a *ACL, known map[string]bool) view {
		var in []string
		for _, n := range names {
			if known[n] && a.AllowNamespaceOperation(n, op) {
				in = append(in, n)
			}
		}
		return view{strings.Join(in, ","), a.NamespaceOperationElsewhere(func(n string) bool { return known[n] }, op)}
	}
	universe := append(append([]string{}, names...), "zzz", "pxd", "abab", "prod2")
	compared := 0
	for range 300 {
		known := map[string]bool{}
		for _, n := range names {
			if rng.IntN(2) == 0 {
				known[n] = true
			}
		}
		acls := make([]*ACL, 40)
		byView := map[view][]*ACL{}
		for i := range acls {
			acls[i] = randomACL()
			v := viewOf(acls[i], known)
			byView[v] = append(byView[v], acls[i])
			for _, n := range universe {
				if known[n] {
					continue
				}
				allowed := acls[i].AllowNamespaceOperation(n, op)
				if (v.elsewhere == "" && allowed) || (v.elsewhere == "*" && !allowed) {
					t.Fatalf("elsewhere %q, yet %s on %q is %v", v.elsewhere, op, n, allowed)
				}
			}
		}
		for v, same := range byView {
			for _, b := range same[1:] {
				compared++
				for _, n := range universe {
					if same[0].AllowNamespaceOperation(n, op) != b.AllowNamespaceOperation(n, op) {
						t.Fatalf("view %+v (known %v): the ACLs decide %q differently", v, known, n)
					}
				}
			}
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d pairs of ACLs shared a view", compared)
	}
	if ManagementACL.NamespaceOperationElsewhere(func(string) bool { return false }, op) != "*" {
		t.Fatal("management is not allowed everywhere")
	}
}
