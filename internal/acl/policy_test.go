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
		{"unknown block", "nodes {\n policy = \"read\"\n}", `1:1: unknown block "nodes"`},
		{"unknown key", "namespace \"a\" {\n  policy = \"read\"\n  polcy = \"write\"\n}", `3:3: namespace "a": unknown key "polcy"`},
		{"unknown key in = form", "node = { policy = \"read\" extra = 1 }", `node: unknown key "extra"`},
		{"unknown key in JSON", `{"namespace": {"a": {"policy": "read", "capability": ["read-job"]}}}`, `namespace "a": unknown key "capability"`},
		{"unknown key in variables", "namespace \"a\" { variables { paths \"*\" { capabilities = [\"read\"] } } }", `variables: unknown key "paths"`},
		{"label on coarse", `node "x" { policy = "read" }`, "node: takes no label"},
		{"two labels", `namespace "a" "b" { policy = "read" }`, `namespace "a": a rule takes one label`},
		{"hcl1 label with =", `namespace "a" = { policy = "read" }`, "1:15: nested object expected"},
		{"capabilities as a string", `namespace "a" { capabilities = "read-job" }`, `namespace "a": capabilities must be a list of strings`},
		{"attribute twice", "node {\n policy = \"read\"\n policy = \"write\"\n}", "3:2: node: policy declared twice"},
		{"node pool policy", `node_pool "x" { policy = "scale" }`, `node_pool "x": policy "scale" is not one of deny, read, write`},
		{"node pool capability", `node_pool "x" { capabilities = ["read-job"] }`, `node_pool "x": unknown capability "read-job"`},
		{"node pool name", `node_pool "a b" { policy = "read" }`, `node_pool "a b": the name must be`},
		{"node pool twice", "node_pool \"a\" { policy = \"read\" }\nnode_pool \"a\" { policy = \"write\" }", `2:11: node_pool "a": declared twice`},
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

// TestParse_AcceptsNomadsHCL1Forms: Nomad parses policies with HCL1, so
// every form below is a policy Nomad accepts, and each must mean what
// the plain block form means.
func TestParse_AcceptsNomadsHCL1Forms(t *testing.T) {
	cases := []struct{ name, rules string }{
		{"blocks", `namespace "default" { policy = "read" } node { policy = "write" }`},
		{"unquoted label", `namespace default { policy = "read" } node { policy = "write" }`},
		{"object assignment", `namespace = { default = { policy = "read" } } node = { policy = "write" }`},
		{"nested label", `namespace { "default" { policy = "read" } } node { policy = "write" }`},
		{"keys in any case", `Namespace "default" { Policy = "read" } NODE { policy = "write" }`},
		{"commas", `namespace "default" { policy = "read", } node { policy = "write", }`},
		{"json", `{"namespace": {"default": {"policy": "read"}}, "node": {"policy": "write"}}`},
		{"json arrays", `{"namespace": [{"default": [{"policy": "read"}]}], "node": [{"policy": "write"}]}`},
		{"json label array", `{"namespace": {"default": [{"policy": "read"}]}, "node": {"policy": "write"}}`},
		{"comments", "# hash\n// slashes\n/* block */ namespace \"default\" { policy = \"read\" } node { policy = \"write\" }"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.rules)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Namespaces) != 1 || p.Namespaces[0].Name != "default" || p.Namespaces[0].Policy != PolicyRead || p.Node != PolicyWrite {
				t.Fatalf("policy = %+v (namespaces %+v)", p, p.Namespaces)
			}
		})
	}
}

// TestNodePoolRules: Nomad 1.6's node_pool block parses and decides the
// pool capabilities (read; write = read, write, delete; deny wins; an
// exact rule beats globs, else the closest glob).
func TestNodePoolRules(t *testing.T) {
	p, err := Parse(`
node_pool "prod" { policy = "read" }
node_pool "dev-*" { policy = "write" }
node_pool "dev-secret" { policy = "deny" }
node_pool "*" { capabilities = ["delete"] }
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.NodePools) != 4 || p.NodePools[0].Name != "prod" || p.NodePools[0].Policy != PolicyRead {
		t.Fatalf("node pools = %+v", p.NodePools)
	}
	a, err := New([]*Policy{p})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		pool, op string
		want     bool
	}{
		{"prod", NodePoolCapabilityRead, true},
		{"prod", NodePoolCapabilityWrite, false},
		{"prod", NodePoolCapabilityDelete, false}, // the exact rule beats "*"
		{"dev-a", NodePoolCapabilityWrite, true},
		{"dev-a", NodePoolCapabilityDelete, true},
		{"dev-secret", NodePoolCapabilityRead, false},
		{"other", NodePoolCapabilityDelete, true},
		{"other", NodePoolCapabilityRead, false},
	}
	for _, c := range cases {
		if got := a.AllowNodePoolOperation(c.pool, c.op); got != c.want {
			t.Errorf("AllowNodePoolOperation(%q, %q) = %v, want %v", c.pool, c.op, got, c.want)
		}
	}
	if DenyAll.AllowNodePoolOperation("default", NodePoolCapabilityRead) || !ManagementACL.AllowNodePoolOperation("x", NodePoolCapabilityDelete) {
		t.Fatal("deny-all or management answer wrongly")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(`namespace "default" { policy = "read" capabilities = ["read-logs"] }`)
	f.Add(`{"namespace": {"*": {"policy": "write"}}}`)
	f.Add(`node { policy = "write" } host_volume "a*" { policy = "read" }`)
	f.Add(`namespace "x" { variables { path "a/*" { capabilities = ["read"] } } }`)
	// HCL1 forms Nomad accepts, and node pools.
	f.Add(`namespace = { default = { policy = "read" } } node = { policy = "write" }`)
	f.Add(`namespace default { Policy = "read", capabilities = ["read-logs",] }`)
	f.Add(`namespace { "a" { variables { path { "b/*" { capabilities = ["list"] } } } } }`)
	f.Add(`{"namespace": [{"default": [{"policy": "read"}]}], "node_pool": {"p*": {"capabilities": ["delete"]}}}`)
	f.Add("node_pool \"prod\" { policy = \"write\" }\nagent { policy = <<EOT\nread\nEOT\n}")
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
		for _, np := range p.NodePools {
			if np.Policy == PolicyDeny && !strings.Contains(np.Name, "*") && a.AllowNodePoolOperation(np.Name, NodePoolCapabilityRead) {
				t.Fatalf("node pool %q is denied yet read is allowed", np.Name)
			}
		}
		_ = a.AllowNodeWrite()
	})
}
