package docker

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/moby/moby/api/pkg/authconfig"
	"github.com/moby/moby/api/types/registry"
	"github.com/moby/moby/client"
	"golang.org/x/crypto/bcrypt"
)

const (
	regUser = "drover"
	regPass = "s3cret-pull"
)

// testRegistry is Debian's docker-registry (distribution 2.x) serving on
// a loopback port with htpasswd auth; the daemon treats 127.0.0.1
// registries as insecure-allowed, so no TLS is needed.
type testRegistry struct {
	host string // 127.0.0.1:port
	c    *client.Client
}

// startRegistry runs the registry for the test, or skips where the
// docker-registry package is not installed.
func startRegistry(t testing.TB) *testRegistry {
	t.Helper()
	c := requireDaemon(t)
	bin, err := exec.LookPath("docker-registry")
	if err != nil {
		t.Skip("docker-registry not installed (Debian package docker-registry; scripts/check installs it)")
	}
	dir := t.TempDir()
	hash, err := bcrypt.GenerateFromPassword([]byte(regPass), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(dir, "htpasswd"), []byte(regUser+":"+string(hash)+"\n"), 0o600))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := l.Addr().String()
	l.Close()
	cfg := fmt.Sprintf(`version: 0.1
log: {level: warn}
storage:
  filesystem: {rootdirectory: %s}
  delete: {enabled: true}
http: {addr: "%s"}
auth:
  htpasswd: {realm: drover-test, path: %s}
`, filepath.Join(dir, "data"), host, filepath.Join(dir, "htpasswd"))
	must(t, os.WriteFile(filepath.Join(dir, "config.yml"), []byte(cfg), 0o600))
	cmd := exec.Command(bin, "serve", filepath.Join(dir, "config.yml"))
	logf, err := os.Create(filepath.Join(dir, "registry.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start docker-registry: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
	})
	testutil.WaitFor(t, 20*time.Second, "the registry to answer on "+host, func() (bool, string) {
		resp, err := http.Get("http://" + host + "/v2/")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusUnauthorized, resp.Status
	})
	return &testRegistry{host: host, c: c}
}

// push builds a FROM scratch image of the test server plus a file of
// size random bytes (so its layers are its own), tags it ref in the
// registry, pushes it and returns its image ID. The local copy stays;
// the caller removes it to force a pull.
func (r *testRegistry) push(t testing.TB, ref string, size int) string {
	t.Helper()
	requireImage(t)
	data, err := os.ReadFile(serverBin)
	if err != nil {
		t.Fatal(err)
	}
	blob := make([]byte, size)
	_, _ = rand.Read(blob)
	if err := buildImage(r.c, ref, map[string][]byte{"server": data, "blob": blob}, ""); err != nil {
		removeImage(r.c, ref)
		t.Fatalf("build %s: %v", ref, err)
	}
	auth, _ := authconfig.Encode(registry.AuthConfig{Username: regUser, Password: regPass, ServerAddress: r.host})
	resp, err := r.c.ImagePush(context.Background(), ref, client.ImagePushOptions{RegistryAuth: auth})
	if err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
	defer resp.Close()
	if err := drainJSONMessages(resp); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
	id, err := (&Driver{client: r.c}).imageID(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	// By ID: a later test may have moved the tag to another image.
	t.Cleanup(func() { removeImage(r.c, id) })
	return id
}

// unique is a fresh repository name in the registry.
func unique(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// events collects a task's driver events.
type events struct {
	mu  sync.Mutex
	all []string
}

func (e *events) emit(m string) { e.mu.Lock(); e.all = append(e.all, m); e.mu.Unlock() }
func (e *events) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.all)
}

func (e *events) has(prefix string) bool {
	return slices.ContainsFunc(e.list(), func(m string) bool { return strings.HasPrefix(m, prefix) })
}

// runningImage is the image ID of the task's container.
func runningImage(t *testing.T, c *client.Client, h *drivers.TaskHandle) string {
	t.Helper()
	var st taskState
	must(t, json.Unmarshal(h.State, &st))
	res, err := c.ContainerInspect(context.Background(), st.ContainerID, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Container.Image
}

// TestRegistry pulls from a real registry with htpasswd auth: with the
// task's credentials the task runs (progress in its events), with wrong
// ones or none the start fails naming image and registry, a missing tag
// is "not found" in that registry, and force_pull fetches a tag that was
// pushed again while the node kept the old image under it. The plugin's
// config.json and credential helper are credential sources too.
func TestRegistry(t *testing.T) {
	reg := startRegistry(t)
	c := reg.c
	ref := reg.host + "/" + unique("drover/app") + ":v1"
	idA := reg.push(t, ref, 1<<20)
	removeImage(c, ref)
	goodAuth := []map[string]any{{"username": regUser, "password": regPass}}

	t.Run("right credentials", func(t *testing.T) {
		d := newDriver(t)
		var ev events
		task := newTask(t, "pull", map[string]any{"image": ref, "auth": goodAuth, "args": []any{"exit", "0", "pulled"}})
		task.Emit = ev.emit
		h := start(t, d, task)
		if res := waitExit(t, d, task.ID, 30*time.Second); res.ExitCode != 0 {
			t.Fatalf("exit %+v", res)
		}
		if got := runningImage(t, c, h); got != idA {
			t.Fatalf("container image %s, want %s", got, idA)
		}
		if !ev.has("Downloading image "+ref) || !ev.has("Downloaded image "+ref) {
			t.Fatalf("events %q", ev.list())
		}
	})

	for _, bad := range []struct {
		name string
		cfg  map[string]any
	}{
		{"wrong credentials", map[string]any{"auth": []map[string]any{{"username": regUser, "password": "wrong"}}}},
		{"no credentials", map[string]any{}},
	} {
		t.Run(bad.name, func(t *testing.T) {
			removeImage(c, ref)
			cfg := map[string]any{"image": ref}
			for k, v := range bad.cfg {
				cfg[k] = v
			}
			_, err := newDriver(t).Start(context.Background(), newTask(t, "pull", cfg))
			var pe *PullError
			if !errors.As(err, &pe) || !errors.Is(err, errUnauthorized) || !strings.Contains(err.Error(), "registry "+reg.host) || !strings.Contains(err.Error(), ref) {
				t.Fatalf("start = %v, want an access-denied pull error naming %s and %s", err, ref, reg.host)
			}
		})
	}

	t.Run("missing tag", func(t *testing.T) {
		missing := strings.TrimSuffix(ref, ":v1") + ":nope"
		_, err := newDriver(t).Start(context.Background(), newTask(t, "pull", map[string]any{"image": missing, "auth": goodAuth}))
		var nf *ImageNotFoundError
		if !errors.As(err, &nf) || nf.Registry != reg.host || !strings.Contains(err.Error(), missing) {
			t.Fatalf("start = %v, want not found in %s", err, reg.host)
		}
	})

	t.Run("auth_soft_fail", func(t *testing.T) {
		d, err := New(map[string]any{"auth": []map[string]any{{"helper": "drover-no-such-helper"}}}, drivers.Env{})
		must(t, err)
		_, err = d.Start(context.Background(), newTask(t, "pull", map[string]any{"image": ref}))
		if err == nil || !strings.Contains(err.Error(), "find credentials") {
			t.Fatalf("without auth_soft_fail: %v, want the credential lookup's failure", err)
		}
		_, err = d.Start(context.Background(), newTask(t, "pull", map[string]any{"image": ref, "auth_soft_fail": true}))
		if !errors.Is(err, errUnauthorized) {
			t.Fatalf("with auth_soft_fail: %v, want the anonymous pull's refusal", err)
		}
	})

	t.Run("plugin config.json", func(t *testing.T) {
		removeImage(c, ref)
		path := filepath.Join(t.TempDir(), "config.json")
		cred := base64.StdEncoding.EncodeToString([]byte(regUser + ":" + regPass))
		must(t, os.WriteFile(path, []byte(`{"auths":{"http://`+reg.host+`":{"auth":"`+cred+`"}}}`), 0o600))
		d, err := New(map[string]any{"auth": []map[string]any{{"config": path}}}, drivers.Env{})
		must(t, err)
		task := newTask(t, "pull", map[string]any{"image": ref, "args": []any{"exit", "0"}})
		start(t, d, task)
		waitExit(t, d, task.ID, 30*time.Second)
	})

	t.Run("plugin credential helper", func(t *testing.T) {
		removeImage(c, ref)
		bin := t.TempDir()
		script := fmt.Sprintf("#!/bin/sh\nread server\nprintf '{\"ServerURL\":\"%%s\",\"Username\":\"%s\",\"Secret\":\"%s\"}' \"$server\"\n", regUser, regPass)
		must(t, os.WriteFile(filepath.Join(bin, "docker-credential-drovertest"), []byte(script), 0o755))
		t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		d, err := New(map[string]any{"auth": []map[string]any{{"helper": "drovertest"}}}, drivers.Env{})
		must(t, err)
		task := newTask(t, "pull", map[string]any{"image": ref, "args": []any{"exit", "0"}})
		start(t, d, task)
		waitExit(t, d, task.ID, 30*time.Second)
	})

	t.Run("force_pull", func(t *testing.T) {
		removeImage(c, ref)
		d := newDriver(t)
		first := newTask(t, "pull", map[string]any{"image": ref, "auth": goodAuth, "args": []any{"exit", "0"}})
		if got := runningImage(t, c, start(t, d, first)); got != idA {
			t.Fatalf("first pull: image %s, want %s", got, idA)
		}
		// The registry's v1 becomes image B; the node keeps A under v1.
		idB := reg.push(t, ref, 1<<10)
		if _, err := c.ImageTag(context.Background(), client.ImageTagOptions{Source: idA, Target: ref}); err != nil {
			t.Fatalf("re-tag A: %v", err)
		}
		cached := newTask(t, "pull", map[string]any{"image": ref, "auth": goodAuth, "args": []any{"exit", "0"}})
		if got := runningImage(t, c, start(t, d, cached)); got != idA {
			t.Fatalf("without force_pull: image %s, want the node's %s", got, idA)
		}
		var ev events
		forced := newTask(t, "pull", map[string]any{"image": ref, "auth": goodAuth, "force_pull": true, "args": []any{"exit", "0"}})
		forced.Emit = ev.emit
		if got := runningImage(t, c, start(t, d, forced)); got != idB {
			t.Fatalf("with force_pull: image %s, want the registry's %s", got, idB)
		}
		if !ev.has("Downloading image " + ref) {
			t.Fatalf("events %q", ev.list())
		}
	})
}
