package agent

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// loopbackAddr makes ip an address of lo for the test (the kernel routes
// all of 127/8 to lo, but only an interface's addresses are fingerprinted,
// as Nomad does) and removes it afterwards if the test added it.
func loopbackAddr(t *testing.T, ip string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("adding a loopback address needs root")
	}
	out, err := exec.Command("ip", "-o", "addr", "show", "dev", "lo").CombinedOutput()
	if err != nil {
		t.Skipf("ip addr: %v %s", err, out)
	}
	if strings.Contains(string(out), " "+ip+"/") {
		return
	}
	if out, err := exec.Command("ip", "addr", "add", ip+"/32", "dev", "lo").CombinedOutput(); err != nil {
		t.Skipf("ip addr add %s: %v %s", ip, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "addr", "del", ip+"/32", "dev", "lo").Run() })
}

// TestHostNetworks_PortsBindOnTheirNetwork runs a client with two host
// networks on loopback addresses and one job whose two groups ask for the
// same static port, one on each network: both are placed on the one node
// (a port collides per address), each task's NOMAD_ADDR_/NOMAD_HOST_IP_
// show its network's address, and the server each task starts on
// NOMAD_ADDR_web answers on that address.
func TestHostNetworks_PortsBindOnTheirNetwork(t *testing.T) {
	loopbackAddr(t, "127.0.0.2")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()

	_, c := testAgent(t, func(cfg *config.Config) {
		cfg.Client.Enabled = true
		cfg.DataDir = testutil.DataDir(t)
		cfg.Server.EnabledSchedulers = nil
		cfg.Client.HostNetworks = []config.HostNetwork{{Name: "one", CIDR: "127.0.0.1/32"}, {Name: "two", CIDR: "127.0.0.2/32"}}
	})
	job := api.NewServiceJob("hostnet", "hostnet", "global", 50)
	job.Datacenters = []string{"dc1"}
	for _, name := range []string{"one", "two"} {
		tg := api.NewTaskGroup(name, 1)
		tg.Networks = []*api.NetworkResource{{ReservedPorts: []api.Port{{Label: "web", Value: port, HostNetwork: name}}}}
		task := api.NewTask("t", "raw_exec")
		task.Config = map[string]any{"command": "/bin/sh", "args": []any{"-c",
			`cd "$NOMAD_TASK_DIR" && echo "$NOMAD_GROUP_NAME $NOMAD_ADDR_web $NOMAD_HOST_IP_web" > index.html && exec python3 -m http.server "$NOMAD_PORT_web" --bind "$NOMAD_IP_web"`}}
		task.Require(&api.Resources{CPU: pointer(50), MemoryMB: pointer(64)})
		task.KillTimeout = pointer(time.Second)
		tg.AddTask(task)
		job.AddTaskGroup(tg)
	}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 30*time.Second, "both groups running", func() (bool, string) {
		stubs, _, err := c.Jobs().Allocations("hostnet", false, nil)
		if err != nil {
			return false, err.Error()
		}
		running := 0
		for _, s := range stubs {
			if s.ClientStatus == api.AllocClientStatusRunning {
				running++
			}
		}
		return running == 2, allocProgress(stubs)
	})
	stubs, _, err := c.Jobs().Allocations("hostnet", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stubs {
		a, _, err := c.Allocations().Info(s.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		ip := map[string]string{"one": "127.0.0.1", "two": "127.0.0.2"}[a.TaskGroup]
		ports := a.AllocatedResources.Shared.Ports
		if len(ports) != 1 || ports[0].HostIP != ip || ports[0].Value != port {
			t.Fatalf("group %s ports %+v, want %s:%d", a.TaskGroup, ports, ip, port)
		}
		addr := net.JoinHostPort(ip, fmt.Sprint(port))
		want := fmt.Sprintf("%s %s %s", a.TaskGroup, addr, ip)
		testutil.WaitFor(t, 20*time.Second, "group "+a.TaskGroup+" serving on "+addr, func() (bool, string) {
			resp, err := http.Get("http://" + addr + "/index.html")
			if err != nil {
				return false, err.Error()
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			return strings.TrimSpace(string(body)) == want, string(body)
		})
	}
}
