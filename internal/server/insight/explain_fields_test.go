package insight

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// A port on a host network only one node offers, and a device no node
// has: the explanation names what each node lacks.
func TestExplain_BlockedByHostNetworkAndDevice(t *testing.T) {
	c := newCluster(t)
	c.node("a", func(n *structs.Node) {
		n.HostNetworks = map[string]*structs.ClientHostNetworkConfig{"public": {Name: "public", CIDR: "10.0.1.0/24", Addresses: []string{"10.0.1.5"}}}
	})
	c.node("b", nil)
	c.node("c", nil)

	spec := svc("pub", 2, 100, 100)
	spec.TaskGroups[0].Networks = []*structs.NetworkResource{{ReservedPorts: []structs.Port{{Label: "web", Value: 8080, HostNetwork: "public"}}}}
	job := c.job(spec)
	if got := unplacedOf(c.place(job), "g"); got != 1 {
		t.Fatalf("the real scheduler left %d unplaced, want 1", got)
	}
	g := explain(t, c, job, "g")
	contains(t, "reasons", []string{reasonsString(g)}, "missing host network public x2")
	contains(t, "fixes", g.Fixes, "missing host network public excludes 2 of 3 nodes")

	spec = svc("gpu", 1, 100, 100)
	spec.TaskGroups[0].Tasks[0].Resources.Devices = []*structs.RequestedDevice{{Name: "nvidia/gpu", Count: 1}}
	job = c.job(spec)
	if got := unplacedOf(c.place(job), "g"); got != 1 {
		t.Fatalf("the real scheduler left %d unplaced, want 1", got)
	}
	g = explain(t, c, job, "g")
	contains(t, "reasons", []string{reasonsString(g)}, "missing device nvidia/gpu x3")
	contains(t, "fixes", g.Fixes, "missing device nvidia/gpu excludes all 3 nodes")
}
