package acl

import "testing"

func compile(t *testing.T, rules ...string) *ACL {
	t.Helper()
	var ps []*Policy
	for _, r := range rules {
		p, err := Parse(r)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	a, err := New(ps)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestACL_NamespaceOperations(t *testing.T) {
	cases := []struct {
		name  string
		rules []string
		ns    string
		op    string
		want  bool
	}{
		{"read grants read-job", []string{`namespace "default" { policy = "read" }`}, "default", "read-job", true},
		{"read grants list-jobs", []string{`namespace "default" { policy = "read" }`}, "default", "list-jobs", true},
		{"read denies submit", []string{`namespace "default" { policy = "read" }`}, "default", "submit-job", false},
		{"read denies logs", []string{`namespace "default" { policy = "read" }`}, "default", "read-logs", false},
		{"write grants submit", []string{`namespace "default" { policy = "write" }`}, "default", "submit-job", true},
		{"write grants exec", []string{`namespace "default" { policy = "write" }`}, "default", "alloc-exec", true},
		{"write does not grant node exec", []string{`namespace "default" { policy = "write" }`}, "default", "alloc-node-exec", false},
		{"scale grants scale-job only", []string{`namespace "default" { policy = "scale" }`}, "default", "scale-job", true},
		{"scale denies submit", []string{`namespace "default" { policy = "scale" }`}, "default", "submit-job", false},
		{"list grants list-jobs", []string{`namespace "default" { policy = "list" }`}, "default", "list-jobs", true},
		{"list denies read-job", []string{`namespace "default" { policy = "list" }`}, "default", "read-job", false},
		{"capabilities alone", []string{`namespace "default" { capabilities = ["read-logs"] }`}, "default", "read-logs", true},
		{"other namespace", []string{`namespace "default" { policy = "write" }`}, "prod", "read-job", false},
		{"glob", []string{`namespace "*" { policy = "read" }`}, "prod", "read-job", true},
		{"exact beats glob", []string{`namespace "*" { policy = "write" }
namespace "prod" { policy = "read" }`}, "prod", "submit-job", false},
		{"closest glob wins", []string{`namespace "*" { policy = "write" }
namespace "prod-*" { policy = "deny" }`}, "prod-api", "read-job", false},
		{"closest glob other ns", []string{`namespace "*" { policy = "write" }
namespace "prod-*" { policy = "deny" }`}, "dev-api", "submit-job", true},
		{"closer suffix glob", []string{`namespace "p*" { policy = "read" }
namespace "*-api" { policy = "write" }`}, "prod-api", "submit-job", true},
		{"deny across policies wins", []string{`namespace "default" { policy = "write" }`, `namespace "default" { policy = "deny" }`}, "default", "read-job", false},
		{"grants add up", []string{`namespace "default" { policy = "read" }`, `namespace "default" { capabilities = ["alloc-exec"] }`}, "default", "alloc-exec", true},
		{"deny capability overrides", []string{`namespace "default" {
policy = "write"
capabilities = ["deny"]
}`}, "default", "read-job", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := compile(t, tc.rules...).AllowNamespaceOperation(tc.ns, tc.op); got != tc.want {
				t.Fatalf("AllowNamespaceOperation(%q, %q) = %v, want %v", tc.ns, tc.op, got, tc.want)
			}
		})
	}
}

func TestACL_CoarseRules(t *testing.T) {
	type check struct {
		name string
		fn   func(*ACL) bool
	}
	checks := []check{
		{"node read", (*ACL).AllowNodeRead}, {"node write", (*ACL).AllowNodeWrite},
		{"agent read", (*ACL).AllowAgentRead}, {"agent write", (*ACL).AllowAgentWrite},
		{"operator read", (*ACL).AllowOperatorRead}, {"operator write", (*ACL).AllowOperatorWrite},
		{"quota read", (*ACL).AllowQuotaRead}, {"quota write", (*ACL).AllowQuotaWrite},
		{"plugin list", (*ACL).AllowPluginList}, {"plugin read", (*ACL).AllowPluginRead},
	}
	cases := []struct {
		rules []string
		want  map[string]bool
	}{
		{nil, map[string]bool{}},
		{[]string{`node { policy = "read" }`}, map[string]bool{"node read": true}},
		{[]string{`node { policy = "write" }`}, map[string]bool{"node read": true, "node write": true}},
		{[]string{`node { policy = "write" }`, `node { policy = "deny" }`}, map[string]bool{}},
		{[]string{`agent { policy = "read" }`, `agent { policy = "write" }`}, map[string]bool{"agent read": true, "agent write": true}},
		{[]string{`operator { policy = "read" }`}, map[string]bool{"operator read": true}},
		{[]string{`quota { policy = "write" }`}, map[string]bool{"quota read": true, "quota write": true}},
		{[]string{`plugin { policy = "list" }`}, map[string]bool{"plugin list": true}},
		{[]string{`plugin { policy = "read" }`}, map[string]bool{"plugin list": true, "plugin read": true}},
	}
	for i, tc := range cases {
		a := compile(t, tc.rules...)
		if len(tc.rules) == 0 {
			a = DenyAll
		}
		for _, c := range checks {
			if got := c.fn(a); got != tc.want[c.name] {
				t.Errorf("case %d %v: %s = %v, want %v", i, tc.rules, c.name, got, tc.want[c.name])
			}
			if !c.fn(ManagementACL) {
				t.Errorf("management: %s denied", c.name)
			}
		}
	}
}

func TestACL_HostVolumesAndVariables(t *testing.T) {
	a := compile(t, `
host_volume "*" { policy = "read" }
host_volume "certs" { policy = "write" }
host_volume "secret-*" { policy = "deny" }
namespace "default" {
  policy = "read"
  variables {
    path "*"          { capabilities = ["read"] }
    path "project/*"  { capabilities = ["write", "read"] }
    path "project/db" { capabilities = ["deny"] }
  }
}`)
	for _, tc := range []struct {
		got, want bool
		what      string
	}{
		{a.AllowHostVolumeOperation("data", "mount-readonly"), true, "glob read"},
		{a.AllowHostVolumeOperation("data", "mount-readwrite"), false, "glob read no write"},
		{a.AllowHostVolumeOperation("certs", "mount-readwrite"), true, "exact write"},
		{a.AllowHostVolumeOperation("secret-1", "mount-readonly"), false, "closest deny"},
		{a.AllowVariableOperation("default", "other", "read"), true, "variable *"},
		{a.AllowVariableOperation("default", "other", "write"), false, "variable * write"},
		{a.AllowVariableOperation("default", "project/web", "write"), true, "variable project/*"},
		{a.AllowVariableOperation("default", "project/db", "read"), false, "variable exact deny"},
		{a.AllowVariableOperation("prod", "x", "read"), false, "variable other ns"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.what, tc.got, tc.want)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*", "abc", true}, {"a*", "bac", false},
		{"*c", "abc", true}, {"a*c", "abc", true}, {"a*c", "ac", true}, {"a*b*c", "axbyc", true},
		{"a*b*c", "axcyb", false}, {"ab*ba", "aba", false}, {"abc", "abc", true}, {"abc", "abcd", false},
	} {
		if got := globMatch(tc.pattern, tc.name); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

// Variables are granted only by a namespace's variables block, as in
// Nomad: its policy (read, write, even with every capability listed)
// grants no variable at all, read on a path implies list, and deny on a
// path (or from another policy) wins.
func TestACL_VariableOperations(t *testing.T) {
	paths := `namespace "default" {
  variables {
    path "app/*"     { capabilities = ["read"] }
    path "app/db"    { capabilities = ["write", "read"] }
    path "logs/*"    { capabilities = ["list"] }
    path "tmp/*"     { capabilities = ["destroy"] }
    path "secret/*"  { capabilities = ["read", "deny"] }
  }
}`
	cases := []struct {
		name         string
		rules        []string
		ns, path, op string
		want         bool
	}{
		{"ns read grants no read", []string{`namespace "default" { policy = "read" }`}, "default", "app/x", "read", false},
		{"ns read grants no list", []string{`namespace "default" { policy = "read" }`}, "default", "app/x", "list", false},
		{"ns write grants no read", []string{`namespace "default" { policy = "write" }`}, "default", "app/x", "read", false},
		{"ns write grants no write", []string{`namespace "default" { policy = "write" }`}, "default", "app/x", "write", false},
		{"ns write grants no destroy", []string{`namespace "default" { policy = "write" }`}, "default", "app/x", "destroy", false},
		{"glob ns write grants nothing", []string{`namespace "*" { policy = "write" }`}, "default", "app/x", "read", false},
		{"ns capabilities grant nothing", []string{`namespace "default" { capabilities = ["read-job", "submit-job", "list-jobs"] }`}, "default", "app/x", "read", false},
		{"path read", []string{paths}, "default", "app/x", "read", true},
		{"path read implies list", []string{paths}, "default", "app/x", "list", true},
		{"path read no write", []string{paths}, "default", "app/x", "write", false},
		{"closest path write", []string{paths}, "default", "app/db", "write", true},
		{"write is not destroy", []string{paths}, "default", "app/db", "destroy", false},
		{"list only", []string{paths}, "default", "logs/a", "list", true},
		{"list is not read", []string{paths}, "default", "logs/a", "read", false},
		{"destroy only", []string{paths}, "default", "tmp/a", "destroy", true},
		{"path deny wins in its block", []string{paths}, "default", "secret/a", "read", false},
		{"unmatched path", []string{paths}, "default", "other", "read", false},
		{"other namespace", []string{paths}, "prod", "app/x", "read", false},
		{"ns policy next to paths adds nothing", []string{paths, `namespace "default" { policy = "write" }`}, "default", "other", "read", false},
		{"deny across policies wins", []string{paths, `namespace "default" {
  variables {
    path "app/*" { capabilities = ["deny"] }
  }
}`}, "default", "app/x", "read", false},
		{"ns deny leaves variables to their block", []string{paths, `namespace "default" { policy = "deny" }`}, "default", "app/x", "read", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := compile(t, tc.rules...).AllowVariableOperation(tc.ns, tc.path, tc.op); got != tc.want {
				t.Fatalf("AllowVariableOperation(%q, %q, %q) = %v, want %v", tc.ns, tc.path, tc.op, got, tc.want)
			}
		})
	}
	if !ManagementACL.AllowVariableOperation("any", "x", "destroy") {
		t.Fatal("management denied a variable")
	}
}
