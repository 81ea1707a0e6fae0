package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/client/allocnet"
)

var (
	serverBinOnce sync.Once
	serverBin     string
	serverBinErr  error
)

// requireBridge skips where the client cannot make bridge networks: not
// root, or without the CNI reference plugins (scripts/check installs
// containernetworking-plugins) or iptables.
func requireBridge(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("bridge networking needs root")
	}
	attrs := allocnet.Fingerprint(t.Context(), allocnet.Config{})
	for _, p := range allocnet.BridgePlugins {
		if _, ok := attrs[allocnet.AttrPluginPrefix+p]; !ok {
			t.Skipf("CNI plugin %s not in %v (scripts/check installs containernetworking-plugins)", p, allocnet.DefaultCNIPath)
		}
	}
	if _, err := exec.LookPath("iptables"); err != nil {
		t.Skip("iptables not installed")
	}
}

// httpServerBinary compiles testdata/httpserver once: a server on :8080.
func httpServerBinary(t *testing.T) string {
	t.Helper()
	serverBinOnce.Do(func() {
		serverBin = filepath.Join(testTempDir, "httpserver")
		cmd := exec.Command("go", "build", "-o", serverBin, "./testdata/httpserver")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			serverBinErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if serverBinErr != nil {
		t.Fatal(serverBinErr)
	}
	return serverBin
}

// bridgeJob is a group of count n in bridge mode with port "http" mapped
// to 8080: a raw_exec web server and a raw_exec client that fetches it
// over localhost (the namespace the two share) and prints what it got and
// its NOMAD_ALLOC_IP_http.
func bridgeJob(id string, n int, server string) *api.Job {
	job := serviceJob(id, n, func() *api.Task {
		t := api.NewTask("web", "raw_exec")
		t.Config = map[string]any{"command": server}
		t.Require(&api.Resources{CPU: pointer(50), MemoryMB: pointer(64)})
		t.KillTimeout = pointer(2 * time.Second)
		return t
	}())
	client := shellTask("raw_exec", `while ! out=$(curl -sf http://localhost:8080/); do sleep 0.2; done; `+
		`echo "got $out"; echo "alloc ip $NOMAD_ALLOC_IP_http"; cat /proc/net/dev | grep -c eth0; exec sleep 1000`)
	client.Name = "client"
	tg := job.TaskGroups[0]
	tg.AddTask(client)
	tg.Networks = []*api.NetworkResource{{Mode: "bridge", DynamicPorts: []api.Port{{Label: "http", To: 8080}}}}
	return job
}

// bridgeFootprint counts what the allocs' networks leave on the node.
func bridgeFootprint(t *testing.T, ids []string, addrs []string) (netns, veths, rules int) {
	t.Helper()
	for _, id := range ids {
		if _, err := os.Stat(allocnet.NetNSPath(id)); err == nil {
			netns++
		}
	}
	if out, err := exec.Command("ip", "-o", "link", "show", "master", allocnet.DefaultBridgeName).Output(); err == nil {
		veths = strings.Count(string(out), "\n")
	}
	for _, table := range []string{"nat", "filter"} {
		out, _ := exec.Command("iptables-save", "-t", table).Output()
		for _, l := range strings.Split(string(out), "\n") {
			for _, s := range append(append([]string{}, ids...), addrs...) {
				if s != "" && strings.Contains(l, s) {
					rules++
					break
				}
			}
		}
	}
	return netns, veths, rules
}

func TestBridgeGroupSharesANamespaceAndMapsItsPort(t *testing.T) {
	requireBridge(t)
	server := httpServerBinary(t)
	_, c := startServer(t, nil)
	register(t, c, bridgeJob("bridged", 2, server))
	allocs := runningAllocs(t, c, "bridged", 2)
	var ids, addrs []string
	for _, a := range allocs {
		ids = append(ids, a.ID)
		var st *api.AllocNetworkStatus
		waitFor(t, 20*time.Second, "network status of "+a.ID, func() (bool, string) {
			full, _, err := c.Allocations().Info(a.ID, nil)
			if err != nil {
				return false, err.Error()
			}
			st = full.NetworkStatus
			return st != nil && st.Address != "", fmt.Sprintf("%+v", st)
		})
		if st.InterfaceName != allocnet.IfName || !strings.HasPrefix(st.Address, "172.26.") {
			t.Fatalf("alloc %s network status %+v, want eth0 in 172.26.64.0/20", a.ID, st)
		}
		addrs = append(addrs, st.Address)
		// The client task reached the web task over localhost, and sees
		// its own alloc's address.
		var out string
		waitFor(t, 20*time.Second, "client task's output in "+a.ID, func() (bool, string) {
			out = readLogs(t, c, a, "client", "stdout")
			return strings.Contains(out, "alloc ip"), out
		})
		if !strings.Contains(out, "got hello from web") || !strings.Contains(out, "alloc ip "+st.Address+"\n") {
			t.Fatalf("client task of %s printed %q", a.ID, out)
		}
		// And the host reaches the web task on the mapped port.
		addr := hostPort(t, a, "http")
		waitFor(t, 10*time.Second, "GET http://"+addr, func() (bool, string) {
			resp, err := http.Get("http://" + addr + "/")
			if err != nil {
				return false, err.Error()
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return string(b) == "hello from web\n", string(b)
		})
	}
	if addrs[0] == addrs[1] {
		t.Fatalf("both allocs got %s", addrs[0])
	}
	if ns, veths, rules := bridgeFootprint(t, ids, addrs); ns != 2 || veths < 2 || rules == 0 {
		t.Fatalf("while running: %d namespaces, %d veths, %d rules", ns, veths, rules)
	}
	if _, _, err := c.Jobs().Deregister("bridged", false, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "namespaces, veths and rules of the stopped allocs gone", func() (bool, string) {
		ns, veths, rules := bridgeFootprint(t, ids, addrs)
		return ns == 0 && veths == 0 && rules == 0, fmt.Sprintf("%d namespaces, %d veths, %d rules", ns, veths, rules)
	})
}
