package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/moby/moby/client"
)

// pauseImage is the tests' infra_image, built once from testdata/pause.
var (
	pauseImage = "drover-test-pause:" + strconv.Itoa(os.Getpid())
	pauseOnce  sync.Once
	pauseErr   error
	pauseBuilt bool
)

func requirePauseImage(t *testing.T) *client.Client {
	t.Helper()
	c := requireDaemon(t)
	pauseOnce.Do(func() {
		dir, err := os.MkdirTemp("", "drover-pause")
		if err != nil {
			pauseErr = err
			return
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "server")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./testdata/pause")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
		if out, err := cmd.CombinedOutput(); err != nil {
			pauseErr = fmt.Errorf("go build: %v: %s", err, out)
			return
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			pauseErr = err
			return
		}
		pauseErr = buildImage(c, pauseImage, map[string][]byte{"server": data}, "")
		pauseBuilt = pauseErr == nil
	})
	if pauseErr != nil {
		t.Fatalf("build pause image: %v", pauseErr)
	}
	return c
}

func newInfraDriver(t *testing.T) *Driver {
	t.Helper()
	d, err := New(map[string]any{"infra_image": pauseImage}, drivers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return d.(*Driver)
}

// TestDockerTaskJoinsTheAllocsPauseContainer: CreateNetwork starts a
// pause container (network none, the block's hostname and dns) whose
// namespace it returns; a task of the alloc runs in it (network mode
// container:<pause>, no ports published by Docker); a restarted driver
// finds the same pause container by its labels; the pause image is
// counted as in use until DestroyNetwork removes the container.
func TestDockerTaskJoinsTheAllocsPauseContainer(t *testing.T) {
	requireImage(t)
	c := requirePauseImage(t)
	d := newInfraDriver(t)
	ctx := context.Background()
	task := newTask(t, "web", map[string]any{"image": testImage, "ports": []any{"http"}})
	task.Ports = []drivers.PortMapping{{Label: "http", Value: 25999, To: 8080}}
	spec := &drivers.AllocNetworkSpec{AllocID: task.AllocID, AllocDir: task.TaskDir.AllocDir, Hostname: "web-host",
		DNSServers: []string{"192.0.2.53"}, DNSSearches: []string{"example.test"}}
	ns, err := d.CreateNetwork(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.DestroyNetwork(context.Background(), task.AllocID) })
	host, _ := os.Readlink("/proc/self/ns/net")
	if got, err := os.Readlink(ns); err != nil || got == host {
		t.Fatalf("namespace %s = %q, %v (host's %q)", ns, got, err, host)
	}
	in, ok := d.infras.get(task.AllocID)
	if !ok {
		t.Fatal("pause container not recorded")
	}
	pause, err := c.ContainerInspect(ctx, in.id, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pc := pause.Container
	if pc.Config.Hostname != "web-host" || string(pc.HostConfig.NetworkMode) != "none" || len(pc.HostConfig.DNS) != 1 ||
		pc.HostConfig.DNS[0].String() != "192.0.2.53" || pc.Config.Labels[LabelInfra] != "true" || pc.Config.Image != pauseImage {
		t.Fatalf("pause container %+v %+v", pc.Config, pc.HostConfig)
	}
	if n := d.images.count(in.imageID); n != 1 {
		t.Fatalf("pause image users = %d, want 1", n)
	}

	task.Network = &drivers.NetworkIsolation{Mode: "bridge", NetNSPath: ns}
	h := start(t, d, task)
	var st taskState
	if err := json.Unmarshal(h.State, &st); err != nil {
		t.Fatal(err)
	}
	info, err := c.ContainerInspect(ctx, st.ContainerID, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(info.Container.HostConfig.NetworkMode); got != "container:"+in.id || len(info.Container.HostConfig.PortBindings) != 0 {
		t.Fatalf("task network mode %q, port bindings %v", got, info.Container.HostConfig.PortBindings)
	}
	if got, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", info.Container.State.Pid)); got != mustReadlink(t, ns) {
		t.Fatalf("task's namespace %q, the pause's %q", got, mustReadlink(t, ns))
	}

	// A restarted client's driver finds the pause container again.
	d2 := newInfraDriver(t)
	ns2, err := d2.CreateNetwork(ctx, spec)
	if err != nil || mustReadlink(t, ns2) != mustReadlink(t, ns) {
		t.Fatalf("re-attach = %s, %v", ns2, err)
	}
	if in2, _ := d2.infras.get(task.AllocID); in2.id != in.id || d2.images.count(in.imageID) != 1 {
		t.Fatalf("re-attached to %+v, want %s", in2, in.id)
	}

	if err := d.Destroy(task.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := d.DestroyNetwork(ctx, task.AllocID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ContainerInspect(ctx, in.id, client.ContainerInspectOptions{}); !IsNotFound(err) {
		t.Fatalf("pause container after DestroyNetwork: %v", err)
	}
	if n := d.images.count(in.imageID); n != 0 {
		t.Fatalf("pause image users after destroy = %d", n)
	}
	if err := d.DestroyNetwork(ctx, task.AllocID); err != nil {
		t.Fatalf("second DestroyNetwork: %v", err)
	}
}

func mustReadlink(t *testing.T, p string) string {
	t.Helper()
	s, err := os.Readlink(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDockerTaskInAGroupNamespaceRefusesNetworkOptions: what Docker cannot
// set on a container joined to another's namespace is refused, naming the
// option, before anything is pulled or created.
func TestDockerTaskInAGroupNamespaceRefusesNetworkOptions(t *testing.T) {
	for _, tc := range []struct {
		field string
		value any
	}{
		{"hostname", "h"}, {"dns_servers", []any{"192.0.2.1"}}, {"network_mode", "bridge"},
		{"extra_hosts", []any{"a:192.0.2.1"}}, {"port_map", map[string]any{"http": 80}}, {"ports", []any{"nope"}},
	} {
		t.Run(tc.field, func(t *testing.T) {
			task := newTask(t, "web", map[string]any{"image": "never-pulled.invalid/x:1", tc.field: tc.value})
			task.Ports = []drivers.PortMapping{{Label: "http", Value: 25998, To: 8080}}
			task.Network = &drivers.NetworkIsolation{Mode: "bridge", NetNSPath: "/var/run/netns/x"}
			d, err := New(nil, drivers.Env{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = d.Start(context.Background(), task)
			var ce *drivers.ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field {
				t.Fatalf("start = %v", err)
			}
		})
	}
}
