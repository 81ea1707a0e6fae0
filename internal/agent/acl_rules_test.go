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
	boundPaths := map[string]bool{}
	for _, r := range (&HTTPServer{}).serverRouteTable() {
		if r.by != nil {
			boundPaths[r.path] = true
		}
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
				if _, ok := aclRules[path]; !ok && !boundPaths[path] {
					t.Errorf("%s: route %s has no entry in aclRules", name, path)
				}
			}
		}
	}
	for _, r := range (&HTTPServer{}).serverRouteTable() {
		seen++
		rule, ok := aclRules[r.path]
		ruled := ok && rule.write != nil
		if r.method == "GET" {
			ruled = ok && rule.read != nil
		}
		switch {
		case r.by == nil && !ruled:
			t.Errorf("serverRouteTable: route %s %s names no method and has no entry in aclRules", r.method, r.path)
		case r.by != nil && ruled:
			t.Errorf("serverRouteTable: route %s %s is checked by %s; its entry in aclRules is a second decision", r.method, r.path, r.by.Name())
		}
	}
	if seen < 60 {
		t.Fatalf("found only %d route registrations; the scan is broken", seen)
	}
}
