package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestNeedsPorts(t *testing.T) {
	net := []*structs.NetworkResource{{DynamicPorts: []structs.Port{{Label: "http"}}}}
	cases := []struct {
		name string
		tg   *structs.TaskGroup
		want bool
	}{
		{"nothing", &structs.TaskGroup{Tasks: []*structs.Task{{Name: "a"}, {Name: "b", Resources: &structs.Resources{CPU: 1}}}}, false},
		{"group network", &structs.TaskGroup{Networks: net, Tasks: []*structs.Task{{Name: "a"}}}, true},
		{"second task's network", &structs.TaskGroup{Tasks: []*structs.Task{{Name: "a"}, {Name: "b", Resources: &structs.Resources{Networks: net}}}}, true},
	}
	for _, tc := range cases {
		if got := needsPorts(tc.tg); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDynamicRange(t *testing.T) {
	cases := []struct {
		name           string
		res            *structs.NodeResources
		wantLo, wantHi int
	}{
		{"no resources", nil, DefaultMinDynamicPort, DefaultMaxDynamicPort},
		{"unset", &structs.NodeResources{}, DefaultMinDynamicPort, DefaultMaxDynamicPort},
		{"node range", &structs.NodeResources{MinDynamicPort: 30000, MaxDynamicPort: 30010}, 30000, 30010},
		{"one port", &structs.NodeResources{MinDynamicPort: 30000, MaxDynamicPort: 30000}, 30000, 30000},
		{"inverted range ignored", &structs.NodeResources{MinDynamicPort: 30000, MaxDynamicPort: 29999}, DefaultMinDynamicPort, DefaultMaxDynamicPort},
		{"no minimum ignored", &structs.NodeResources{MaxDynamicPort: 100}, DefaultMinDynamicPort, DefaultMaxDynamicPort},
	}
	for _, tc := range cases {
		lo, hi := dynamicRange(&structs.Node{NodeResources: tc.res})
		if lo != tc.wantLo || hi != tc.wantHi {
			t.Errorf("%s: %d-%d, want %d-%d", tc.name, lo, hi, tc.wantLo, tc.wantHi)
		}
	}
}

// portNode is a node whose dynamic range is lo..hi.
func portNode(lo, hi int) *structs.Node {
	n := mockNode()
	n.NodeResources.MinDynamicPort, n.NodeResources.MaxDynamicPort = lo, hi
	n.NodeResources.Networks = []*structs.NetworkResource{{Device: "eth0"}, {IP: "10.0.0.7"}}
	return n
}

// holding is an alloc holding the given host ports.
func holding(id string, ports ...int) *structs.Allocation {
	a := &structs.Allocation{ID: id, AllocatedResources: &structs.AllocatedResources{}}
	for _, p := range ports {
		a.AllocatedResources.Shared.Ports = append(a.AllocatedResources.Shared.Ports, structs.AllocatedPortMapping{Label: "x", Value: p})
	}
	return a
}

func dynamicGroup(labels ...string) *structs.TaskGroup {
	nr := &structs.NetworkResource{}
	for _, l := range labels {
		nr.DynamicPorts = append(nr.DynamicPorts, structs.Port{Label: l})
	}
	return &structs.TaskGroup{Name: "g", Networks: []*structs.NetworkResource{nr}}
}

// TestPorts_DynamicFindsTheLastFreePort fills a range but for one port, so
// the random tries almost surely miss and the scan must find it, for many
// seeds; the one-port range checks the span includes both ends.
func TestPorts_DynamicFindsTheLastFreePort(t *testing.T) {
	cases := []struct {
		name   string
		lo, hi int
		free   int
	}{
		{"free port at the bottom", 30000, 30099, 30000},
		{"free port in the middle", 30000, 30099, 30042},
		{"free port at the top", 30000, 30099, 30099},
		{"range of one port", 31000, 31000, 31000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := portNode(tc.lo, tc.hi)
			var held []int
			for p := tc.lo; p <= tc.hi; p++ {
				if p != tc.free {
					held = append(held, p)
				}
			}
			for seed := range uint64(50) {
				u := newNodeUsage(n)
				u.add(holding("full", held...))
				offer, reason := assignPorts(u, dynamicGroup("http"), rand.New(rand.NewPCG(seed, seed)))
				if reason != "" || len(offer.ports) != 1 || offer.ports[0].Value != tc.free {
					t.Fatalf("seed %d: offer %+v, reason %q; want port %d", seed, offer, reason, tc.free)
				}
				u.add(holding("last", tc.free))
				if _, reason := assignPorts(u, dynamicGroup("http"), rand.New(rand.NewPCG(seed, seed))); reason != "network: dynamic port selection failed" {
					t.Fatalf("seed %d: full range gave %q", seed, reason)
				}
			}
		})
	}
}

// TestPorts_DynamicSpreadOverTheRange checks that the picks of a free
// range stay inside it and are not all the same few ports.
func TestPorts_DynamicSpreadOverTheRange(t *testing.T) {
	n := portNode(40000, 40999)
	rng := rand.New(rand.NewPCG(7, 7))
	seen := map[int]bool{}
	for range 200 {
		offer, reason := assignPorts(newNodeUsage(n), dynamicGroup("a", "b"), rng)
		if reason != "" {
			t.Fatal(reason)
		}
		a, b := offer.ports[0].Value, offer.ports[1].Value
		if a == b {
			t.Fatalf("port %d granted twice to one placement", a)
		}
		for _, p := range []int{a, b} {
			if p < 40000 || p > 40999 {
				t.Fatalf("port %d outside 40000-40999", p)
			}
			seen[p] = true
		}
	}
	if len(seen) < 200 {
		t.Fatalf("only %d distinct ports in 400 picks", len(seen))
	}
}

// TestPorts_Reserved checks static ports: the reason names the port, a
// port of 0 or below is refused, a port asked twice by one placement
// collides, and the mappings keep label, value, to and the node IP.
func TestPorts_Reserved(t *testing.T) {
	static := func(ports ...structs.Port) *structs.TaskGroup {
		return &structs.TaskGroup{Name: "g", Networks: []*structs.NetworkResource{{ReservedPorts: ports}}}
	}
	cases := []struct {
		name       string
		tg         *structs.TaskGroup
		wantReason string
	}{
		{"zero port", static(structs.Port{Label: "http", Value: 0}), "network: reserved port collision http=0"},
		{"negative port", static(structs.Port{Label: "http", Value: -1}), "network: reserved port collision http=-1"},
		{"held by an alloc", static(structs.Port{Label: "db", Value: 5432}), "network: reserved port collision db=5432"},
		{"asked twice", static(structs.Port{Label: "a", Value: 7000}, structs.Port{Label: "b", Value: 7000}), "network: reserved port collision b=7000"},
		{"group and task ask the same", &structs.TaskGroup{Name: "g",
			Networks: []*structs.NetworkResource{{ReservedPorts: []structs.Port{{Label: "a", Value: 7000}}}},
			Tasks:    []*structs.Task{{Name: "t", Resources: &structs.Resources{Networks: []*structs.NetworkResource{{ReservedPorts: []structs.Port{{Label: "t", Value: 7000}}}}}}},
		}, "network: reserved port collision t=7000"},
		{"port 1 is fine", static(structs.Port{Label: "low", Value: 1}), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := newNodeUsage(portNode(30000, 30010))
			u.add(holding("db", 5432))
			offer, reason := assignPorts(u, tc.tg, rand.New(rand.NewPCG(1, 1)))
			if reason != tc.wantReason || (offer == nil) != (reason != "") {
				t.Fatalf("offer %+v, reason %q; want %q", offer, reason, tc.wantReason)
			}
		})
	}
	t.Run("mappings", func(t *testing.T) {
		u := newNodeUsage(portNode(30000, 30000))
		nr := &structs.NetworkResource{ReservedPorts: []structs.Port{{Label: "http", Value: 8080, To: 80}}, DynamicPorts: []structs.Port{{Label: "dyn", To: 9000}}}
		offer, reason := assignPorts(u, &structs.TaskGroup{Name: "g", Networks: []*structs.NetworkResource{nr}}, rand.New(rand.NewPCG(1, 1)))
		if reason != "" {
			t.Fatal(reason)
		}
		want := []structs.AllocatedPortMapping{
			{Label: "http", Value: 8080, To: 80, HostIP: "10.0.0.7"},
			{Label: "dyn", Value: 30000, To: 9000, HostIP: "10.0.0.7"},
		}
		if len(offer.ports) != 2 || offer.ports[0] != want[0] || offer.ports[1] != want[1] {
			t.Fatalf("mappings %+v, want %+v", offer.ports, want)
		}
		if nr.DynamicPorts[0].Value != 0 || nr.IP != "" {
			t.Fatal("the job's network was changed")
		}
	})
	t.Run("an asked IP is kept", func(t *testing.T) {
		u := newNodeUsage(portNode(30000, 30000))
		tg := &structs.TaskGroup{Name: "g", Networks: []*structs.NetworkResource{{IP: "192.168.0.9", DynamicPorts: []structs.Port{{Label: "x"}}}}}
		offer, _ := assignPorts(u, tg, rand.New(rand.NewPCG(1, 1)))
		if offer.shared[0].IP != "192.168.0.9" || offer.ports[0].HostIP != "192.168.0.9" {
			t.Fatalf("offer %+v", offer.ports)
		}
	})
}

// TestPorts_TaskNetworks checks that task networks are granted per task
// and share the placement's ports with the group's networks.
func TestPorts_TaskNetworks(t *testing.T) {
	u := newNodeUsage(portNode(30000, 30002))
	taskNet := func(label string) *structs.Resources {
		return &structs.Resources{Networks: []*structs.NetworkResource{{DynamicPorts: []structs.Port{{Label: label}}}}}
	}
	tg := dynamicGroup("group")
	tg.Tasks = []*structs.Task{{Name: "none"}, {Name: "a", Resources: taskNet("a")}, {Name: "b", Resources: taskNet("b")}}
	offer, reason := assignPorts(u, tg, rand.New(rand.NewPCG(3, 3)))
	if reason != "" {
		t.Fatal(reason)
	}
	if len(offer.tasks) != 2 || len(offer.tasks["a"]) != 1 || len(offer.tasks["b"]) != 1 {
		t.Fatalf("task networks %+v", offer.tasks)
	}
	got := map[int]bool{offer.ports[0].Value: true, offer.tasks["a"][0].DynamicPorts[0].Value: true, offer.tasks["b"][0].DynamicPorts[0].Value: true}
	if len(got) != 3 || offer.tasks["a"][0].IP != "10.0.0.7" {
		t.Fatalf("ports %v, task a %+v", got, offer.tasks["a"][0])
	}
	tg.Tasks = append(tg.Tasks, &structs.Task{Name: "c", Resources: taskNet("c")})
	if _, reason := assignPorts(newNodeUsage(portNode(30000, 30002)), tg, rand.New(rand.NewPCG(3, 3))); reason != "network: dynamic port selection failed" {
		t.Fatalf("a fourth port in a range of three gave %q", reason)
	}
}

// TestNodeUsage_PortsReleased checks that removing an alloc frees its
// ports for the next placement, while a port two allocs claim stays used
// until both are gone.
func TestNodeUsage_PortsReleased(t *testing.T) {
	u := newNodeUsage(portNode(30000, 30000))
	u.add(holding("a", 30000))
	u.add(holding("b", 30000))
	rng := rand.New(rand.NewPCG(1, 1))
	u.remove("a")
	if _, reason := assignPorts(u, dynamicGroup("x"), rng); reason == "" {
		t.Fatal("port still claimed by b was granted")
	}
	u.remove("b")
	if offer, reason := assignPorts(u, dynamicGroup("x"), rng); reason != "" || offer.ports[0].Value != 30000 {
		t.Fatalf("freed port not granted: %q", reason)
	}
}

// TestPorts_DynamicNotPiledAfterAUsedBlock checks that with most of the
// range used in one block, picks are still spread over the free ports:
// a scan alone would nearly always return the first port after the block,
// and concurrent plans for the node would then collide on it.
func TestPorts_DynamicNotPiledAfterAUsedBlock(t *testing.T) {
	n := portNode(40000, 40999)
	var held []int
	for p := 40000; p < 40900; p++ {
		held = append(held, p)
	}
	rng := rand.New(rand.NewPCG(11, 11))
	counts := map[int]int{}
	const picks = 200
	for range picks {
		u := newNodeUsage(n)
		u.add(holding("block", held...))
		offer, reason := assignPorts(u, dynamicGroup("http"), rng)
		if reason != "" {
			t.Fatal(reason)
		}
		p := offer.ports[0].Value
		if p < 40900 || p > 40999 {
			t.Fatalf("port %d outside the free ports 40900-40999", p)
		}
		counts[p]++
	}
	if counts[40900] > picks/4 || len(counts) < 50 {
		t.Fatalf("port 40900 picked %d of %d times, %d distinct ports", counts[40900], picks, len(counts))
	}
}

func TestParsePortList(t *testing.T) {
	cases := []struct {
		in   string
		want []int
	}{
		{"", nil},
		{"22, 80 ,8000-8002", []int{22, 80, 8000, 8001, 8002}},
		{"5-5", []int{5}},
		{"65534-65540", []int{65534, 65535}},
		{"9-3,x,7,1-y", []int{7}},
	}
	for _, tc := range cases {
		if got := parsePortList(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("parsePortList(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
