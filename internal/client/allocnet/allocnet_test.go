package allocnet

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/drover-project/drover/internal/structs"
)

// testConfig is a bridge of the test's own (name, subnet, network name), so
// counting its veths and rules sees nothing of anyone else's; it skips
// where root or the plugins are missing.
func testConfig(t *testing.T) Config {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("CNI bridge tests need root")
	}
	cfg := Config{StateDir: t.TempDir()}.withDefaults()
	for _, p := range BridgePlugins {
		if findPlugin(cfg.CNIPath, p) == "" {
			t.Skipf("CNI plugin %s not found in %v (scripts/check installs containernetworking-plugins)", p, cfg.CNIPath)
		}
	}
	if _, err := exec.LookPath("iptables"); err != nil {
		t.Skip("iptables not found: the bridge, firewall and portmap plugins need it")
	}
	suffix := uuid.NewString()[:6]
	cfg.BridgeName = "drvt" + suffix
	cfg.NetworkName = "drovertest-" + suffix
	cfg.BridgeSubnet = fmt.Sprintf("10.%d.%d.0/24", 200+int(suffix[0])%50, int(suffix[1])%250)
	return cfg
}

// footprint counts what an alloc network leaves on the host: namespaces of
// the given allocs, veths on the test bridge, and iptables rules naming the
// test network or its subnet, plus CNI's per-alloc chains.
type footprint struct{ netns, veths, rules int }

func measure(t *testing.T, cfg Config, ids []string) footprint {
	t.Helper()
	var f footprint
	for _, id := range ids {
		if exists(NetNSPath(id)) {
			f.netns++
		}
	}
	if out, err := exec.Command("ip", "-o", "link", "show", "master", cfg.BridgeName).Output(); err == nil {
		f.veths = strings.Count(string(out), "\n")
	}
	prefix := strings.TrimSuffix(cfg.BridgeSubnet, "0/24")
	for _, table := range []string{"nat", "filter"} {
		out, err := exec.Command("iptables-save", "-t", table).Output()
		if err != nil {
			t.Fatalf("iptables-save -t %s: %v", table, err)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, cfg.NetworkName) || strings.Contains(l, prefix) ||
				strings.HasPrefix(l, ":CNI-") && !sharedChain(l) {
				f.rules++
			}
		}
	}
	return f
}

// sharedChain: chains the plugins create once and keep for every network.
func sharedChain(l string) bool {
	for _, c := range []string{":CNI-HOSTPORT-", ":CNI-FORWARD", ":CNI-ADMIN"} {
		if strings.HasPrefix(l, c) {
			return true
		}
	}
	return false
}

func bridgeRequest(id string, hostPort int) *Request {
	return &Request{AllocID: id, Mode: structs.NetworkModeBridge,
		Ports: PortsFor([]structs.AllocatedPortMapping{{Label: "http", Value: hostPort, To: 8080}})}
}

func TestBridge_TwoAllocsGetTheirOwnAddressAndTeardownLeavesNothing(t *testing.T) {
	cfg := testConfig(t)
	m := New(cfg)
	ctx := context.Background()
	ids := []string{uuid.NewString(), uuid.NewString()}
	t.Cleanup(func() {
		for _, id := range ids {
			_ = m.Teardown(ctx, id)
		}
		_ = exec.Command("ip", "link", "del", cfg.BridgeName).Run()
	})
	before := measure(t, cfg, ids)
	var addrs []string
	for i, id := range ids {
		st, err := m.Setup(ctx, bridgeRequest(id, 24000+i))
		if err != nil {
			t.Fatalf("setup alloc %d: %v", i, err)
		}
		_, subnet, _ := net.ParseCIDR(cfg.BridgeSubnet)
		if !subnet.Contains(net.ParseIP(st.Address)) || st.InterfaceName != IfName {
			t.Fatalf("alloc %d: address %q on %q, want one of %s on %s", i, st.Address, st.InterfaceName, cfg.BridgeSubnet, IfName)
		}
		addrs = append(addrs, st.Address)
	}
	if addrs[0] == addrs[1] {
		t.Fatalf("both allocs got %s", addrs[0])
	}
	during := measure(t, cfg, ids)
	t.Logf("footprint before %+v, with two allocs %+v", before, during)
	if during.netns != 2 || during.veths != 2 || during.rules <= before.rules {
		t.Fatalf("while running: %+v (before %+v), want 2 namespaces, 2 veths and more rules", during, before)
	}
	// Setup again (a restarted client) re-attaches without a new ADD.
	st, err := m.Setup(ctx, bridgeRequest(ids[0], 24000))
	if err != nil || st.Address != addrs[0] {
		t.Fatalf("second setup: %v, address %v, want %s", err, st, addrs[0])
	}
	for _, id := range ids {
		if err := m.Teardown(ctx, id); err != nil {
			t.Fatalf("teardown: %v", err)
		}
	}
	if after := measure(t, cfg, ids); after != before {
		t.Fatalf("after teardown: %+v, before: %+v", after, before)
	}
	if err := m.Teardown(ctx, ids[0]); err != nil {
		t.Fatalf("second teardown: %v", err)
	}
}

func TestSweep_TearsDownAllocsNotKept(t *testing.T) {
	cfg := testConfig(t)
	m := New(cfg)
	ctx := context.Background()
	keep, gone := uuid.NewString(), uuid.NewString()
	t.Cleanup(func() {
		_ = m.Teardown(ctx, keep)
		_ = m.Teardown(ctx, gone)
		_ = exec.Command("ip", "link", "del", cfg.BridgeName).Run()
	})
	for i, id := range []string{keep, gone} {
		if _, err := m.Setup(ctx, bridgeRequest(id, 24100+i)); err != nil {
			t.Fatal(err)
		}
	}
	// A new manager on the same state dir: a restarted client.
	m2 := New(cfg)
	if err := m2.Sweep(ctx, func(id string) bool { return id == keep }); err != nil {
		t.Fatal(err)
	}
	if !exists(NetNSPath(keep)) || exists(NetNSPath(gone)) {
		t.Fatalf("after sweep: kept alloc's namespace present=%v, gone alloc's present=%v", exists(NetNSPath(keep)), exists(NetNSPath(gone)))
	}
	if _, err := os.Stat(filepath.Join(cfg.StateDir, gone+".json")); !os.IsNotExist(err) {
		t.Fatalf("gone alloc's record: %v", err)
	}
}

var churnAllocs = flag.Int("cni.churn", 10, "allocs set up and torn down one after another by TestBridge_ChurnLeavesNothing (the issue's figure is 50)")

// TestBridge_ChurnLeavesNothing sets up and tears down allocs one after
// another and counts namespaces, veths and iptables rules before and
// after: none may leak. The first alloc runs before the count, so the
// chains the plugins create once and keep are in both.
func TestBridge_ChurnLeavesNothing(t *testing.T) {
	cfg := testConfig(t)
	m := New(cfg)
	ctx := context.Background()
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", cfg.BridgeName).Run() })
	var ids []string
	for i := 0; i <= *churnAllocs; i++ {
		ids = append(ids, uuid.NewString())
	}
	if _, err := m.Setup(ctx, bridgeRequest(ids[0], 24200)); err != nil {
		t.Fatal(err)
	}
	if err := m.Teardown(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	before := measure(t, cfg, ids)
	for i, id := range ids[1:] {
		st, err := m.Setup(ctx, bridgeRequest(id, 24201+i))
		if err != nil {
			t.Fatalf("alloc %d: %v", i, err)
		}
		if st.Address == "" {
			t.Fatalf("alloc %d: no address", i)
		}
		if err := m.Teardown(ctx, id); err != nil {
			t.Fatalf("alloc %d teardown: %v", i, err)
		}
	}
	after := measure(t, cfg, ids)
	if after != before {
		t.Fatalf("after %d allocs: %+v, before: %+v", *churnAllocs, after, before)
	}
	if left := m.Recorded(); len(left) != 0 {
		t.Fatalf("records left: %v", left)
	}
	t.Logf("%d allocs: footprint before %+v, after %+v", *churnAllocs, before, after)
}
