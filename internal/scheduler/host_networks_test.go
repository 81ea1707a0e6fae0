package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// hostNetNode is a node at 10.0.0.5 offering host networks "public"
// (10.0.1.5) and "private" (10.0.2.5, 10.0.2.6; port 9000 reserved
// there), with port 22 reserved by the client on every address.
func hostNetNode() *structs.Node {
	n := mockNode()
	n.NodeResources.Networks = []*structs.NetworkResource{{IP: "10.0.0.5"}}
	n.ReservedResources = &structs.NodeReservedResources{ReservedPorts: "22"}
	n.HostNetworks = map[string]*structs.ClientHostNetworkConfig{
		"public":  {Name: "public", CIDR: "10.0.1.0/24", Addresses: []string{"10.0.1.5"}},
		"private": {Name: "private", Interface: "eth1", ReservedPorts: "9000", Addresses: []string{"10.0.2.5", "10.0.2.6"}},
	}
	return n
}

// portsGroup asks for the ports: label -> host network, static when the
// value is set.
func portsGroup(ports ...structs.Port) *structs.TaskGroup {
	nr := &structs.NetworkResource{Mode: "host"}
	for _, p := range ports {
		if p.Value > 0 {
			nr.ReservedPorts = append(nr.ReservedPorts, p)
		} else {
			nr.DynamicPorts = append(nr.DynamicPorts, p)
		}
	}
	return &structs.TaskGroup{Name: "g", Networks: []*structs.NetworkResource{nr}}
}

func holdingAt(id, ip string, port int) *structs.Allocation {
	return &structs.Allocation{ID: id, AllocatedResources: &structs.AllocatedResources{Shared: structs.AllocatedSharedResources{
		Ports: []structs.AllocatedPortMapping{{Label: "x", Value: port, HostIP: ip}},
	}}}
}

// TestHostNetworks_PortsPerAddress checks that a port takes its host
// network's address and collides only with claims on that address.
func TestHostNetworks_PortsPerAddress(t *testing.T) {
	cases := []struct {
		name    string
		holders []*structs.Allocation
		tg      *structs.TaskGroup
		want    map[string]string // label -> HostIP
		reason  string
	}{
		{"named network gives its address", nil,
			portsGroup(structs.Port{Label: "web", Value: 8080, HostNetwork: "public"}, structs.Port{Label: "dyn", HostNetwork: "public"}, structs.Port{Label: "plain"}),
			map[string]string{"web": "10.0.1.5", "dyn": "10.0.1.5", "plain": "10.0.0.5"}, ""},
		{"explicit default is the node's address", nil,
			portsGroup(structs.Port{Label: "web", Value: 8080, HostNetwork: "default"}),
			map[string]string{"web": "10.0.0.5"}, ""},
		{"same port on the default address does not collide", []*structs.Allocation{holdingAt("a", "10.0.0.5", 8080)},
			portsGroup(structs.Port{Label: "web", Value: 8080, HostNetwork: "public"}),
			map[string]string{"web": "10.0.1.5"}, ""},
		{"legacy mapping without HostIP is on the default address", []*structs.Allocation{holdingAt("a", "", 8080)},
			portsGroup(structs.Port{Label: "web", Value: 8080, HostNetwork: "public"}),
			map[string]string{"web": "10.0.1.5"}, ""},
		{"same port on the same address collides", []*structs.Allocation{holdingAt("a", "10.0.1.5", 8080)},
			portsGroup(structs.Port{Label: "web", Value: 8080, HostNetwork: "public"}),
			nil, "network: reserved port collision web=8080"},
		{"default port still collides on the default address", []*structs.Allocation{holdingAt("a", "10.0.0.5", 8080)},
			portsGroup(structs.Port{Label: "web", Value: 8080}),
			nil, "network: reserved port collision web=8080"},
		{"a network's second address serves a port taken on its first", []*structs.Allocation{holdingAt("a", "10.0.2.5", 8080)},
			portsGroup(structs.Port{Label: "web", Value: 8080, HostNetwork: "private"}),
			map[string]string{"web": "10.0.2.6"}, ""},
		{"host network reserved_ports hold on its addresses", nil,
			portsGroup(structs.Port{Label: "web", Value: 9000, HostNetwork: "private"}),
			nil, "network: reserved port collision web=9000"},
		{"host network reserved_ports do not hold elsewhere", nil,
			portsGroup(structs.Port{Label: "web", Value: 9000, HostNetwork: "public"}),
			map[string]string{"web": "10.0.1.5"}, ""},
		{"client reserved ports hold on every address", nil,
			portsGroup(structs.Port{Label: "ssh", Value: 22, HostNetwork: "public"}),
			nil, "network: reserved port collision ssh=22"},
		{"missing network", nil,
			portsGroup(structs.Port{Label: "web", HostNetwork: "dmz"}),
			nil, "missing host network dmz"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := newNodeUsage(hostNetNode())
			for _, a := range tc.holders {
				u.add(a)
			}
			offer, reason := assignPorts(u, tc.tg, rand.New(rand.NewPCG(1, 2)))
			if reason != tc.reason {
				t.Fatalf("reason %q, want %q", reason, tc.reason)
			}
			if tc.reason != "" {
				return
			}
			got := map[string]string{}
			for _, p := range offer.ports {
				got[p.Label] = p.HostIP
			}
			if len(got) != len(tc.want) {
				t.Fatalf("ports %+v, want %v", offer.ports, tc.want)
			}
			for l, ip := range tc.want {
				if got[l] != ip {
					t.Fatalf("port %s on %q, want %q (%+v)", l, got[l], ip, offer.ports)
				}
			}
		})
	}
}

// TestHostNetworks_UsageReleasesPerAddress checks that removing an alloc
// frees its port on its address only.
func TestHostNetworks_UsageReleasesPerAddress(t *testing.T) {
	u := newNodeUsage(hostNetNode())
	u.add(holdingAt("pub", "10.0.1.5", 8080))
	u.add(holdingAt("def", "10.0.0.5", 8080))
	u.remove("pub")
	if u.portUsed("10.0.1.5", 8080) || !u.portUsed("10.0.0.5", 8080) {
		t.Fatalf("after removing the public claim: public %v, default %v", u.portUsed("10.0.1.5", 8080), u.portUsed("10.0.0.5", 8080))
	}
	u.remove("def")
	if u.portUsed("10.0.0.5", 8080) {
		t.Fatal("default claim not released")
	}
}

// TestHostNetworks_TaskNetworkOneAddress checks a legacy task network: its
// IP is its ports' host network address, and ports on two networks are
// refused since it carries one IP.
func TestHostNetworks_TaskNetworkOneAddress(t *testing.T) {
	task := func(ports ...structs.Port) *structs.TaskGroup {
		return &structs.TaskGroup{Name: "g", Tasks: []*structs.Task{{Name: "t", Resources: &structs.Resources{
			Networks: []*structs.NetworkResource{{ReservedPorts: ports}}}}}}
	}
	u := newNodeUsage(hostNetNode())
	offer, reason := assignPorts(u, task(structs.Port{Label: "a", Value: 81, HostNetwork: "public"}), rand.New(rand.NewPCG(1, 2)))
	if reason != "" || offer.tasks["t"][0].IP != "10.0.1.5" {
		t.Fatalf("reason %q, offer %+v", reason, offer)
	}
	_, reason = assignPorts(u, task(structs.Port{Label: "a", Value: 81, HostNetwork: "public"}, structs.Port{Label: "b", Value: 82}), rand.New(rand.NewPCG(1, 2)))
	if reason != "network: ports of one task network on different host networks" {
		t.Fatalf("reason %q", reason)
	}
}

// TestHostNetworks_Scheduler places through the service scheduler: only
// the node offering the network is feasible, the alloc's port carries its
// address, a static port on the host network does not collide with the
// same port on the node's address, and what cannot be placed names the
// missing network.
func TestHostNetworks_Scheduler(t *testing.T) {
	h := newHarness(t)
	with := h.upsertNode(hostNetNode())
	without := mockNode()
	without.NodeResources.Networks = []*structs.NetworkResource{{IP: "10.0.0.6"}}
	h.upsertNode(without)

	onDefault := mockJob("on-default", 1)
	onDefault.TaskGroups[0].Networks = portsGroup(structs.Port{Label: "web", Value: 8080}).Networks
	onDefault.Constraints = append(onDefault.Constraints, &structs.Constraint{LTarget: "${node.unique.id}", RTarget: with.ID, Operand: "="})
	h.register(onDefault)
	if live := h.liveAllocs(onDefault); len(live) != 1 || live[0].NodeID != with.ID {
		t.Fatalf("default-network job: %d allocs", len(live))
	}

	job := mockJob("public", 2)
	job.TaskGroups[0].Networks = portsGroup(structs.Port{Label: "web", Value: 8080, HostNetwork: "public"}).Networks
	_, _ = h.register(job)
	live := h.liveAllocs(job)
	if len(live) != 1 || live[0].NodeID != with.ID {
		t.Fatalf("placed %d allocs, want 1 on the node with the network", len(live))
	}
	ports := live[0].AllocatedResources.Shared.Ports
	if len(ports) != 1 || ports[0].HostIP != "10.0.1.5" || ports[0].Value != 8080 {
		t.Fatalf("ports %+v", ports)
	}
	m := h.lastEval().FailedTGAllocs["web"]
	if m == nil || m.ConstraintFiltered[FilterHostNetwork+" public"] != 1 || m.DimensionExhausted["network: reserved port collision web=8080"] != 1 {
		t.Fatalf("failed metric %+v", m)
	}

	d, err := DiagnoseGroup(h.store.Snapshot(), job, "web")
	h.must(err)
	for _, nd := range d.Nodes {
		var steps []string
		for _, f := range nd.Failures {
			steps = append(steps, f.Step+": "+f.Key)
		}
		want := []string{"ports: port 8080"}
		if nd.Node.ID == without.ID {
			want = []string{"host-network: missing host network public"}
		}
		if !slices.Equal(steps, want) {
			t.Fatalf("node %s failures %v, want %v", nd.Node.Name, steps, want)
		}
		if nd.Node.ID == with.ID && nd.Failures[0].Holder == nil {
			t.Fatal("the port's holder on the public address is not named")
		}
	}

	// A port stored on the public address leaves the same port free on the
	// node's own: the store's per-node summary counts ports per address
	// (a summary by port number alone refused this placement).
	onWith := &structs.Constraint{LTarget: "${node.unique.id}", RTarget: with.ID, Operand: "="}
	pub := mockJob("public-8081", 1)
	pub.TaskGroups[0].Networks = portsGroup(structs.Port{Label: "web", Value: 8081, HostNetwork: "public"}).Networks
	pub.Constraints = append(pub.Constraints, onWith)
	h.register(pub)
	def := mockJob("default-8081", 1)
	def.TaskGroups[0].Networks = portsGroup(structs.Port{Label: "web", Value: 8081}).Networks
	def.Constraints = append(def.Constraints, onWith)
	h.register(def)
	for _, j := range []*structs.Job{pub, def} {
		if live := h.liveAllocs(j); len(live) != 1 || live[0].NodeID != with.ID {
			t.Fatalf("%s: %d allocs, want 1 on the node with both addresses", j.ID, len(live))
		}
	}
}
