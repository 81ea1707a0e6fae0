package client

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/google/uuid"

	"github.com/drover-project/drover/internal/client/allocnet"
	"github.com/drover-project/drover/internal/client/allocrunner"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// fakeHolder is a "docker" driver that holds alloc namespaces in a
// process of its own (unshare --net), as the real one does in a pause
// container; only Name and the networkHolder methods are called.
type fakeHolder struct {
	drivers.Driver
	mu        sync.Mutex
	procs     map[string]*exec.Cmd
	created   []*drivers.AllocNetworkSpec
	destroyed []string
}

func (h *fakeHolder) Name() string { return holderDriver }

func (h *fakeHolder) CreateNetwork(_ context.Context, spec *drivers.AllocNetworkSpec) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cmd := exec.Command("unshare", "--net", "sleep", "600")
	if err := cmd.Start(); err != nil {
		return "", err
	}
	path := fmt.Sprintf("/proc/%d/ns/net", cmd.Process.Pid)
	host, _ := os.Readlink("/proc/self/ns/net")
	for {
		got, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if got != host {
			break
		}
	}
	h.procs[spec.AllocID] = cmd
	h.created = append(h.created, spec)
	return path, nil
}

func (h *fakeHolder) DestroyNetwork(_ context.Context, allocID string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if cmd, ok := h.procs[allocID]; ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		delete(h.procs, allocID)
	}
	h.destroyed = append(h.destroyed, allocID)
	return nil
}

func (h *fakeHolder) count() (created, destroyed int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.created), len(h.destroyed)
}

func noneAlloc(drivers ...string) *structs.Allocation {
	tg := &structs.TaskGroup{Name: "g", Networks: []*structs.NetworkResource{{Mode: structs.NetworkModeNone, Hostname: "h1",
		DNS: &structs.DNSConfig{Servers: []string{"192.0.2.53"}}}}}
	for i, d := range drivers {
		tg.Tasks = append(tg.Tasks, &structs.Task{Name: fmt.Sprintf("t%d", i), Driver: d})
	}
	return &structs.Allocation{ID: uuid.NewString(), TaskGroup: "g", Job: &structs.Job{ID: "j", TaskGroups: []*structs.TaskGroup{tg}}}
}

// TestAllocNetworks_DockerGroupsTakeTheirNamespaceFromTheHolder: a group
// with a docker task gets the namespace the docker driver holds (with the
// block's hostname and dns), bound where allocnet keeps namespaces; its
// teardown and the sweep of an alloc gone while the client was down remove
// the holder; a group without docker tasks never asks for one; and a
// docker group on a client without the docker driver fails its setup.
func TestAllocNetworks_DockerGroupsTakeTheirNamespaceFromTheHolder(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare not installed")
	}
	cfg := allocnet.Config{StateDir: t.TempDir()}
	if _, ok := allocnet.Fingerprint(context.Background(), cfg)[allocnet.AttrPluginPrefix+"loopback"]; !ok {
		t.Skip("CNI loopback plugin missing (scripts/check installs containernetworking-plugins)")
	}
	h := &fakeHolder{procs: map[string]*exec.Cmd{}}
	t.Cleanup(func() {
		for id := range h.procs {
			_ = h.DestroyNetwork(context.Background(), id)
		}
	})
	reg := &drivers.Registry{}
	reg.Register(h)
	m := allocnet.New(cfg)
	n := allocNetworks{m: m, drivers: reg}
	ctx := context.Background()

	a := noneAlloc("docker", "raw_exec")
	iso, _, ok, err := n.Setup(ctx, a, t.TempDir())
	if err != nil || !ok {
		t.Fatalf("setup: %v %v", ok, err)
	}
	h.mu.Lock()
	spec, proc := h.created[0], h.procs[a.ID]
	h.mu.Unlock()
	if spec.AllocID != a.ID || spec.Hostname != "h1" || len(spec.DNSServers) != 1 || spec.DNSServers[0] != "192.0.2.53" {
		t.Fatalf("holder asked for %+v", spec)
	}
	holderNS, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", proc.Process.Pid))
	if got, err := nsOf(iso.NetNSPath); err != nil || got != holderNS {
		t.Fatalf("alloc namespace %s is %q (%v), the holder's %q", iso.NetNSPath, got, err, holderNS)
	}
	if err := n.Teardown(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, d := h.count(); d != 1 || exists(iso.NetNSPath) {
		t.Fatalf("after teardown: %d holders destroyed, namespace left: %v", d, exists(iso.NetNSPath))
	}

	// No docker task: allocnet makes the namespace itself.
	b := noneAlloc("raw_exec")
	if _, _, _, err := n.Setup(ctx, b, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if c, _ := h.count(); c != 1 {
		t.Fatalf("a group without docker tasks asked the holder (%d creations)", c)
	}
	if err := n.Teardown(ctx, b.ID); err != nil {
		t.Fatal(err)
	}

	// An alloc that went away while the client was down is swept with its
	// holder.
	gone := noneAlloc("docker")
	if _, _, _, err := n.Setup(ctx, gone, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &Client{netManager: m, drivers: reg, runners: map[string]*allocrunner.Runner{}, ctx: cctx, logger: slog.Default()}
	c.sweepNetworks()
	if _, d := h.count(); d != 2 || exists(allocnet.NetNSPath(gone.ID)) || m.Has(gone.ID) {
		t.Fatalf("after the sweep: %d holders destroyed, namespace left %v, record left %v", d, exists(allocnet.NetNSPath(gone.ID)), m.Has(gone.ID))
	}

	// A docker group on a client without the docker driver.
	bare := allocNetworks{m: m, drivers: &drivers.Registry{}}
	if _, _, ok, err := bare.Setup(ctx, noneAlloc("docker"), t.TempDir()); err == nil || !ok {
		t.Fatalf("setup without the docker driver: %v %v", ok, err)
	}
}

func nsOf(path string) (string, error) {
	// A bind-mounted namespace file reads as the namespace through a
	// process that enters it; its inode is what identifies it.
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", fmt.Errorf("no inode for %s", path)
	}
	return fmt.Sprintf("net:[%d]", st.Ino), nil
}

func exists(p string) bool {
	_, err := os.Stat(filepath.Clean(p))
	return err == nil
}

// TestAllocNetworks_HostnameIsInterpolated: the network block's hostname
// takes the alloc's variables, the job's and group's meta and the node's
// attributes, as in Nomad; unknown references stay as written.
func TestAllocNetworks_HostnameIsInterpolated(t *testing.T) {
	a := noneAlloc("raw_exec")
	a.ID, a.Name, a.Namespace = "0b4e3c2a-1111-2222-3333-444455556666", "j.g[3]", "default"
	a.Job.Meta = map[string]string{"tier": "web"}
	a.Job.TaskGroups[0].Meta = map[string]string{"tier": "front"}
	node := &structs.Node{Datacenter: "dc7", Attributes: map[string]string{"unique.hostname": "box"}, Meta: map[string]string{"rack": "r2"}}
	n := allocNetworks{node: func() *structs.Node { return node }, region: "eu"}
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"${NOMAD_SHORT_ALLOC_ID}-${NOMAD_ALLOC_INDEX}", "0b4e3c2a-3"},
		{"${NOMAD_JOB_ID}.${NOMAD_GROUP_NAME}.${NOMAD_REGION}", "j.g.eu"},
		{"${NOMAD_META_tier}-${meta.rack}-${node.datacenter}-${attr.unique.hostname}", "front-r2-dc7-box"},
		{"${NOMAD_TASK_NAME}-${nope}", "${NOMAD_TASK_NAME}-${nope}"},
	} {
		if got := n.hostname(a, tc.in); got != tc.want {
			t.Errorf("hostname %q became %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAllocNetworks_SetupUsesTheInterpolatedHostname: the namespace's
// hostname file and the isolation the tasks get carry the interpolated
// name.
func TestAllocNetworks_SetupUsesTheInterpolatedHostname(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	cfg := allocnet.Config{StateDir: t.TempDir()}
	if _, ok := allocnet.Fingerprint(context.Background(), cfg)[allocnet.AttrPluginPrefix+"loopback"]; !ok {
		t.Skip("CNI loopback plugin missing (scripts/check installs containernetworking-plugins)")
	}
	node := &structs.Node{Datacenter: "dc7"}
	n := allocNetworks{m: allocnet.New(cfg), drivers: &drivers.Registry{}, node: func() *structs.Node { return node }}
	a := noneAlloc("raw_exec")
	a.Job.TaskGroups[0].Networks[0].Hostname = "app-${NOMAD_SHORT_ALLOC_ID}-${node.datacenter}"
	want := "app-" + a.ID[:8] + "-dc7"
	ctx := context.Background()
	iso, _, ok, err := n.Setup(ctx, a, t.TempDir())
	if err != nil || !ok {
		t.Fatalf("setup: %v %v", ok, err)
	}
	t.Cleanup(func() { _ = n.Teardown(ctx, a.ID) })
	b, err := os.ReadFile(iso.HostnamePath)
	if err != nil || iso.Hostname != want || string(b) != want+"\n" {
		t.Fatalf("hostname %q, file %q (%v), want %q", iso.Hostname, b, err, want)
	}
}
