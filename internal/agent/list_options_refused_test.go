package agent

import (
	"strings"
	"testing"
)

// TestListOptions_RefusedWhereNotApplied: a listing that does not filter
// or page (sub-listings, namespaces, node pools) refuses filter,
// per_page, next_token and reverse with a 400 naming the option, where it
// used to answer the whole list as if they were not there.
func TestListOptions_RefusedWhereNotApplied(t *testing.T) {
	_, c := testAgent(t, nil)
	paths := []string{
		"/v1/job/web/allocations", "/v1/job/web/evaluations", "/v1/job/web/deployments", "/v1/job/web/versions",
		"/v1/node/n1/allocations", "/v1/evaluation/e1/allocations", "/v1/deployment/allocations/d1",
		"/v1/namespaces", "/v1/node/pools",
	}
	for _, p := range paths {
		for _, opt := range []struct{ query, name string }{
			{"filter=" + "ID%20%3D%3D%20%22x%22", "filter"}, {"per_page=1", "per_page"}, {"next_token=x", "next_token"}, {"reverse=true", "reverse"},
		} {
			var out any
			_, err := c.Raw().Query(p+"?"+opt.query, &out, nil)
			if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), opt.name+":") {
				t.Errorf("GET %s?%s: %v, want a 400 naming %s", p, opt.query, err, opt.name)
			}
		}
		var out any
		if _, err := c.Raw().Query(p, &out, nil); err != nil && !strings.Contains(err.Error(), "404") {
			t.Errorf("GET %s: %v", p, err)
		}
	}
}
