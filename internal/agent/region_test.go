package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// TestRegion_OtherRegionRefused: a cluster is one region. A read or a
// write addressed to another region is a 400 naming region (it used to be
// answered from this region's state, or applied here); the cluster's own
// region, named or not, is served.
func TestRegion_OtherRegionRefused(t *testing.T) {
	_, c := testAgent(t, nil)
	var out any
	if _, err := c.Raw().Query("/v1/jobs?region=mars", &out, nil); err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), `region: "mars"`) {
		t.Errorf("read in another region: %v, want a 400 naming region", err)
	}
	if _, err := c.Raw().Query("/v1/jobs?region=global", &out, nil); err != nil {
		t.Errorf("read in this region: %v", err)
	}
	ns := &api.Namespace{Name: "team"}
	if _, err := c.Namespaces().Register(ns, &api.WriteOptions{Region: "mars"}); err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "region") {
		t.Errorf("write in another region: %v, want a 400 naming region", err)
	}
	if got, _, err := c.Namespaces().Info("team", nil); err == nil && got != nil {
		t.Errorf("the refused write was applied: %+v", got)
	}
	if _, err := c.Namespaces().Register(ns, &api.WriteOptions{Region: "global"}); err != nil {
		t.Errorf("write in this region: %v", err)
	}
}
