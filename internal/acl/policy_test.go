package acl

import (
	"strings"
	"testing"
)

func TestParse_AcceptsNomadsPolicyShapes(t *testing.T) {
	p, err := Parse(`
namespace "default" {
  policy       = "read"
  capabilities = ["submit-job", "read-logs"]
  variables {
    path "project/*" { capabilities = ["read", "write"] }
  }
}
namespace "prod-*" { policy = "deny" }
node     { policy = "read" }
agent    { policy = "write" }
operator { policy = "deny" }
quota    { policy = "read" }
plugin   { policy = "list" }
host_volume "ca-*" {
  policy       = "read"
  capabilities = ["mount-readwrite"]
}
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Namespaces) != 2 || p.Namespaces[0].Policy != "read" || len(p.Namespaces[0].Capabilities) != 2 {
		t.Fatalf("namespaces = %+v", p.Namespaces)
	}
	if v := p.Namespaces[0].Variables; len(v) != 1 || v[0].PathSpec != "project/*" {
		t.Fatalf("variables = %+v", v)
	}
	if p.Node != "read" || p.Agent != "write" || p.Operator != "deny" || p.Quota != "read" || p.Plugin != "list" {
		t.Fatalf("coarse = %+v", p)
	}
	if len(p.HostVolumes) != 1 || p.HostVolumes[0].Name != "ca-*" {
		t.Fatalf("host volumes = %+v", p.HostVolumes)
	}
}

func TestParse_AcceptsJSON(t *testing.T) {
	p, err := Parse(`{"namespace": {"default": {"policy": "write"}}, "node": {"policy": "read"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Namespaces) != 1 || p.Namespaces[0].Policy != "write" || p.Node != "read" {
		t.Fatalf("policy = %+v", p)
	}
}

func TestParse_RejectsWithPosition(t *testing.T) {
	cases := []struct{ name, rules, want string }{
		{"empty", "  ", "policy is empty"},
		{"bad policy", "namespace \"a\" {\n  policy = \"admin\"\n}", `2:12: namespace "a": policy "admin" is not one of`},
		{"bad capability", "namespace \"a\" {\n  capabilities = [\"fly\"]\n}", `2:18: namespace "a": unknown capability "fly"`},
		{"policy not string", "node {\n  policy = [1]\n}", "2:12: node: policy must be a string"},
		{"unknown block", "nodes {\n policy = \"read\"\n}", "1:1: Unsupported block type"},
		{"syntax", "namespace \"a\" {\n policy = \n}", "2:"},
		{"node write only", "plugin { policy = \"scale\" }", `plugin: policy "scale" is not one of`},
		{"agent without policy", "agent {}", "agent: policy is required"},
		{"twice", "node { policy = \"read\" }\nnode { policy = \"read\" }", "node: declared more than once"},
		{"ns twice", "namespace \"a\" { policy = \"read\" }\nnamespace \"a\" { policy = \"read\" }", `namespace "a": declared twice`},
		{"variable cap", "namespace \"a\" {\n variables {\n  path \"*\" { capabilities = [\"submit-job\"] }\n }\n}", `3:29: namespace "a": variables path "*": unknown capability "submit-job"`},
		{"host volume cap", "host_volume \"x\" { capabilities = [\"read-job\"] }", `unknown capability "read-job"`},
		{"too big", strings.Repeat("#", MaxPolicySize+1), "more than the limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.rules)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`namespace "default" { policy = "read" capabilities = ["read-logs"] }`)
	f.Add(`{"namespace": {"*": {"policy": "write"}}}`)
	f.Add(`node { policy = "write" } host_volume "a*" { policy = "read" }`)
	f.Add(`namespace "x" { variables { path "a/*" { capabilities = ["read"] } } }`)
	f.Fuzz(func(t *testing.T, rules string) {
		p, err := Parse(rules)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		a, err := New([]*Policy{p})
		if err != nil {
			t.Fatal(err)
		}
		// Whatever parsed must compile to an ACL that answers without
		// panicking and never grants through a denied namespace.
		for _, ns := range p.Namespaces {
			if ns.Policy == PolicyDeny && !strings.Contains(ns.Name, "*") && a.AllowNamespaceOperation(ns.Name, NamespaceCapabilityReadJob) {
				t.Fatalf("namespace %q is denied yet read-job is allowed", ns.Name)
			}
		}
		_ = a.AllowNodeWrite()
	})
}
