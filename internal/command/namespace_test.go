package command

import (
	"strings"
	"testing"
)

func TestNamespaceCommands(t *testing.T) {
	addr, c := testAgent(t, nil)
	must := func(r result, want string) {
		t.Helper()
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, want)
		}
	}
	must(run(t, "namespace", "apply", "-address", addr, "-description", "production", "prod"), `Successfully applied namespace "prod"!`)
	if ns, _, err := c.Namespaces().Info("prod", nil); err != nil || ns.Description != "production" {
		t.Fatalf("after apply: %v %+v", err, ns)
	}
	// Apply without -description keeps the description.
	must(run(t, "namespace", "apply", "-address", addr, "prod"), "Successfully")
	if ns, _, _ := c.Namespaces().Info("prod", nil); ns.Description != "production" {
		t.Fatalf("re-apply dropped the description: %+v", ns)
	}
	r := run(t, "namespace", "list", "-address", addr)
	must(r, "prod")
	must(r, "default")
	must(run(t, "namespace", "status", "-address", addr, "prod"), "Description = production")
	must(run(t, "namespace", "delete", "-address", addr, "prod"), `Successfully deleted namespace "prod"!`)
	if r := run(t, "namespace", "status", "-address", addr, "prod"); r.code == 0 {
		t.Fatalf("status of a deleted namespace: %+v", r)
	}
	if r := run(t, "namespace", "delete", "-address", addr, "default"); r.code == 0 || !strings.Contains(r.stderr, "built in") {
		t.Fatalf("delete default: %+v", r)
	}
}
