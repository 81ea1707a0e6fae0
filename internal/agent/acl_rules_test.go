package agent

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// routeLiteral matches the path of a route pattern in a registration:
// "GET /v1/jobs" or m+" /v1/job/{id}/plan".
var routeLiteral = regexp.MustCompile(`"(?:(?:GET|PUT|POST|DELETE|HEAD) )?( ?/(?:v1/|ui|\.well-known|\{\$\})[^"\s]*)"`)

// TestACLRules_EveryRouteHasARule reads the cluster API's route table and
// the agent's sources for the other registrations, so a route
// cannot be added without deciding the capability it needs (at run time
// such a route needs a management token).
func TestACLRules_EveryRouteHasARule(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "acl_rules") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if !strings.Contains(line, "handle") && !strings.Contains(line, "Handler(") && !strings.Contains(line, "HandleFunc(") {
				continue
			}
			for _, m := range routeLiteral.FindAllStringSubmatch(line, -1) {
				path := strings.TrimSpace(m[1])
				seen++
				if _, ok := aclRules[path]; !ok {
					t.Errorf("%s: route %s has no entry in aclRules", name, path)
				}
			}
		}
	}
	for _, r := range (&HTTPServer{}).serverRouteTable() {
		seen++
		if _, ok := aclRules[r.path]; !ok {
			t.Errorf("serverRouteTable: route %s %s has no entry in aclRules", r.method, r.path)
		}
	}
	if seen < 60 {
		t.Fatalf("found only %d route registrations; the scan is broken", seen)
	}
}
