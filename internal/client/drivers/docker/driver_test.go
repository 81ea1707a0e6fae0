package docker

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/testutil"
)

func newDriver(t *testing.T) drivers.Driver {
	t.Helper()
	d, err := New(nil, drivers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func newTask(t testing.TB, name string, cfg map[string]any) *drivers.TaskConfig {
	t.Helper()
	alloc := t.TempDir()
	dir := drivers.TaskDir{Dir: filepath.Join(alloc, name), AllocDir: filepath.Join(alloc, "alloc"),
		LocalDir: filepath.Join(alloc, name, "local"), SecretsDir: filepath.Join(alloc, name, "secrets"),
		LogDir: filepath.Join(alloc, "alloc", "logs")}
	for _, p := range []string{dir.LocalDir, dir.SecretsDir, dir.LogDir} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	allocID := strconv.FormatInt(time.Now().UnixNano(), 36)
	return &drivers.TaskConfig{
		ID: allocID + "/" + name, AllocID: allocID, TaskName: name, Config: cfg, TaskDir: dir,
		Env:        map[string]string{"NOMAD_TASK_NAME": name},
		StdoutPath: filepath.Join(dir.LogDir, name+".stdout.0"), StderrPath: filepath.Join(dir.LogDir, name+".stderr.0"),
		Resources: drivers.Resources{CPUShares: 100, MemoryMB: 64},
	}
}

func start(t *testing.T, d drivers.Driver, task *drivers.TaskConfig) *drivers.TaskHandle {
	t.Helper()
	h, err := d.Start(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Destroy(task.ID, true) })
	return h
}

func waitExit(t *testing.T, d drivers.Driver, id string, within time.Duration) *drivers.ExitResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	ch, err := d.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	res, ok := <-ch
	if !ok {
		t.Fatalf("task %s did not exit within %s", id, within)
	}
	return res
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestValidateConfig(t *testing.T) {
	d := newDriver(t)
	cases := []struct {
		name  string
		cfg   map[string]any
		field string
	}{
		{"valid", map[string]any{"image": "x", "ports": []any{"http"}, "labels": map[string]any{"a": "b"}, "args": []string{"-v"}}, ""},
		{"labels as block list", map[string]any{"image": "x", "labels": []map[string]any{{"a": "b"}}}, ""},
		{"missing image", map[string]any{"command": "/bin/x"}, "image"},
		{"unknown field", map[string]any{"image": "x", "no_such_option": []any{}}, "no_such_option"},
		{"refused option", map[string]any{"image": "x", "load": "img.tar"}, "load"},
		{"port_map not numbers", map[string]any{"image": "x", "port_map": []map[string]any{{"http": "80"}}}, "port_map"},
		{"mount without target", map[string]any{"image": "x", "mount": []map[string]any{{"type": "tmpfs"}}}, "mount"},
		{"mount bad type", map[string]any{"image": "x", "mount": []map[string]any{{"type": "nfs", "target": "/x"}}}, "mount"},
		{"ulimit not soft:hard", map[string]any{"image": "x", "ulimit": map[string]any{"nofile": "a:b"}}, "ulimit"},
		{"logging unknown driver", map[string]any{"image": "x", "logging": []map[string]any{{"type": "carrier-pigeon"}}}, "logging"},
		{"ports wrong type", map[string]any{"image": "x", "ports": "http"}, "ports"},
		{"labels wrong type", map[string]any{"image": "x", "labels": []any{"a"}}, "labels"},
		{"label value wrong type", map[string]any{"image": "x", "labels": map[string]any{"a": 1}}, "labels"},
		{"image wrong type", map[string]any{"image": true}, "image"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := d.ValidateConfig(tc.cfg)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ce *drivers.ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field {
				t.Fatalf("want error naming %q, got %v", tc.field, err)
			}
		})
	}
}

func TestFingerprint(t *testing.T) {
	requireDaemon(t)
	info := newDriver(t).Fingerprint(context.Background())
	if !info.Detected || !info.Healthy || info.Attributes["driver.docker.version"] == "" {
		t.Fatalf("fingerprint = %+v", info)
	}
}

func TestFingerprintUnreachable(t *testing.T) {
	d, err := New(map[string]any{"endpoint": "unix:///nonexistent.sock"}, drivers.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if info := d.Fingerprint(context.Background()); info.Detected || !strings.Contains(info.HealthDescription, "unreachable") {
		t.Fatalf("fingerprint = %+v", info)
	}
}

// TestUnreachableRegistry: a missing image is pulled, and a registry
// that does not answer fails the start with an error naming both.
func TestUnreachableRegistry(t *testing.T) {
	requireDaemon(t)
	_, err := newDriver(t).Start(context.Background(), newTask(t, "web", map[string]any{"image": "127.0.0.1:1/drover-no-such-image:1"}))
	var pe *PullError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), `pull image "127.0.0.1:1/drover-no-such-image:1" from registry 127.0.0.1:1`) {
		t.Fatalf("start = %v", err)
	}
}

func TestUnallocatedPortLabel(t *testing.T) {
	requireImage(t)
	_, err := newDriver(t).Start(context.Background(), newTask(t, "web", map[string]any{"image": testImage, "ports": []any{"http"}}))
	var ce *drivers.ConfigError
	if !errors.As(err, &ce) || ce.Field != "ports" {
		t.Fatalf("start = %v", err)
	}
}

func TestExitCodeAndLogs(t *testing.T) {
	requireImage(t)
	d := newDriver(t)
	task := newTask(t, "batch", map[string]any{"image": testImage, "args": []any{"exit", "3", "hi", "there"}})
	start(t, d, task)
	res := waitExit(t, d, task.ID, 30*time.Second)
	if res.ExitCode != 3 || res.Err != nil || res.OOMKilled {
		t.Fatalf("exit = %+v", res)
	}
	if out, _ := os.ReadFile(task.StdoutPath); string(out) != "hi there\n" {
		t.Fatalf("stdout = %q", out)
	}
	if out, _ := os.ReadFile(task.StderrPath); string(out) != "to stderr\n" {
		t.Fatalf("stderr = %q", out)
	}
}

// serve starts the HTTP server image with its port mapped and returns the
// host address once it answers.
func serve(t *testing.T, d drivers.Driver) (*drivers.TaskConfig, *drivers.TaskHandle, string) {
	t.Helper()
	port := freePort(t)
	task := newTask(t, "web", map[string]any{"image": testImage, "ports": []any{"http"}, "labels": map[string]any{"team": "core"}})
	task.Ports = []drivers.PortMapping{{Label: "http", Value: port, To: 8080, HostIP: "127.0.0.1"}}
	h := start(t, d, task)
	addr := "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	var body string
	testutil.WaitFor(t, 15*time.Second, "the server to answer on "+addr, func() (bool, string) {
		var err error
		if body, err = get(addr); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	if body != "hello from web\n" {
		t.Fatalf("body = %q", body)
	}
	return task, h, addr
}

func get(addr string) (string, error) {
	resp, err := (&http.Client{Timeout: time.Second}).Get(addr)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestPortMappedServerAndStop(t *testing.T) {
	requireImage(t)
	d := newDriver(t)
	task, _, addr := serve(t, d)
	if st, err := d.Stats(context.Background(), task.ID); err != nil || st.MemoryUsageBytes == 0 {
		t.Fatalf("stats = %+v, %v", st, err)
	}
	if err := d.Stop(task.ID, 10*time.Second, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	if res := waitExit(t, d, task.ID, time.Second); res.ExitCode != 0 {
		t.Fatalf("exit = %+v", res)
	}
	if _, err := get(addr); err == nil {
		t.Fatal("server still answers after stop")
	}
	if out, _ := os.ReadFile(task.StdoutPath); !strings.Contains(string(out), "listening on :8080") {
		t.Fatalf("stdout = %q", out)
	}
	if err := d.Destroy(task.ID, false); err != nil {
		t.Fatal(err)
	}
}

func TestRecoverByContainerID(t *testing.T) {
	requireImage(t)
	d1 := newDriver(t)
	task, h, addr := serve(t, d1)
	d2 := newDriver(t) // the restarted client's driver
	if err := d2.Recover(h); err != nil {
		t.Fatal(err)
	}
	if _, err := get(addr); err != nil {
		t.Fatalf("server gone after recover: %v", err)
	}
	if err := d2.Stop(task.ID, 10*time.Second, ""); err != nil {
		t.Fatal(err)
	}
	if res := waitExit(t, d2, task.ID, time.Second); res.ExitCode != 0 || res.Err != nil {
		t.Fatalf("exit = %+v", res)
	}
	if err := d2.Destroy(task.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := newDriver(t).Recover(h); !errors.Is(err, drivers.ErrTaskGone) {
		t.Fatalf("recover of removed container = %v", err)
	}
}

func TestPluginConfig(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   map[string]any
		field string
	}{
		{"defaults", nil, ""},
		{"extra_labels known and globbed", map[string]any{"extra_labels": []any{"job_name", "task_*"}}, ""},
		{"extra_labels unknown to the driver", map[string]any{"extra_labels": []any{"node_name"}}, "extra_labels"},
		{"gc block", map[string]any{"gc": []map[string]any{{"image": false, "image_delay": "10m", "container": false,
			"dangling_containers": []map[string]any{{"enabled": false, "period": "1m", "creation_grace": "2m", "dry_run": true}}}}}, ""},
		{"gc unknown key", map[string]any{"gc": []map[string]any{{"images": true}}}, "gc"},
		{"auth block", map[string]any{"auth": []map[string]any{{"config": "/etc/docker/config.json", "helper": "ecr-login"}}}, ""},
		{"unknown plugin key", map[string]any{"infra_image": "pause"}, "infra_image"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc, err := decodePluginConfig(tc.cfg)
			if tc.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				if tc.cfg == nil && (!pc.GC.Image || !pc.GC.Container || !pc.GC.DanglingContainers.Enabled || pc.GC.ImageDelay != defaultImageDelay || len(pc.AllowCaps) == 0) {
					t.Fatalf("defaults %+v", pc)
				}
				return
			}
			var ce *drivers.ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field {
				t.Fatalf("got %v, want an error on %s", err, tc.field)
			}
		})
	}
	pc, err := decodePluginConfig(map[string]any{"gc": []map[string]any{{"image": false, "container": false, "dangling_containers": []map[string]any{{"enabled": false}}}}})
	if err != nil || pc.GC.Image || pc.GC.Container || pc.GC.DanglingContainers.Enabled {
		t.Fatalf("explicit false: %+v, %v", pc, err)
	}
}

// TestTTYOutputIsLogged: with tty the container's output is one stream,
// logged as stdout.
func TestTTYOutputIsLogged(t *testing.T) {
	requireImage(t)
	d := newDriver(t)
	task := newTask(t, "tty", map[string]any{"image": testImage, "tty": true, "args": []any{"exit", "0", "hi"}})
	start(t, d, task)
	if res := waitExit(t, d, task.ID, 30*time.Second); res.ExitCode != 0 {
		t.Fatalf("exit %+v", res)
	}
	if out, _ := os.ReadFile(task.StdoutPath); string(out) != "hi\r\nto stderr\r\n" {
		t.Fatalf("stdout = %q", out)
	}
}
