package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// The test image: a static Go HTTP server in an image FROM scratch, built
// locally (there is no registry here), once per run, removed at the end.
var (
	imageTag  = "drover-e2e-http:" + strconv.Itoa(os.Getpid())
	imageOnce sync.Once
	imageErr  error
	imageMade bool
)

// docker runs the docker CLI, bounded so a wedged daemon fails the test.
func docker(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// requireDockerImage skips without a Docker daemon and builds the image.
func requireDockerImage(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("docker CLI not installed; skipping the docker end-to-end test")
	}
	if out, err := docker("info", "--format", "{{.ServerVersion}}"); err != nil {
		t.Skipf("docker daemon unavailable (%v: %s); skipping the docker end-to-end test", err, out)
	}
	imageOnce.Do(func() { imageErr = buildImage() })
	if imageErr != nil {
		t.Fatalf("build test image: %v", imageErr)
	}
}

func buildImage() error {
	dir, err := os.MkdirTemp(testTempDir, "image-")
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "server"), "./testdata/httpserver")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v: %s", err, out)
	}
	df := "FROM scratch\nCOPY server /server\nENTRYPOINT [\"/server\"]\n"
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(df), 0o644); err != nil {
		return err
	}
	if out, err := docker("build", "-q", "-t", imageTag, dir); err != nil {
		return fmt.Errorf("docker build: %v: %s", err, out)
	}
	imageMade = true
	return nil
}

func cleanupImages() {
	if imageMade {
		_, _ = docker("rmi", "-f", imageTag)
	}
}

// containersOf lists the IDs of containers (running or not) of an alloc.
func containersOf(t *testing.T, allocID string) []string {
	t.Helper()
	out, err := docker("ps", "-a", "-q", "--filter", "label=com.drover.alloc_id="+allocID)
	if err != nil {
		t.Fatalf("docker ps: %v: %s", err, out)
	}
	return strings.Fields(out)
}

// hostPort is where the alloc's port label is reachable on the node.
func hostPort(t *testing.T, a *api.Allocation, label string) string {
	t.Helper()
	if a.AllocatedResources != nil {
		for _, p := range a.AllocatedResources.Shared.Ports {
			if p.Label == label {
				ip := p.HostIP
				if ip == "" || ip == "0.0.0.0" {
					ip = "127.0.0.1"
				}
				return net.JoinHostPort(ip, strconv.Itoa(p.Value))
			}
		}
	}
	t.Fatalf("alloc %s has no port %q: %+v", a.ID, label, a.AllocatedResources)
	return ""
}

func TestDockerTaskRunsWithItsPortMapped(t *testing.T) {
	t.Parallel()
	requireDockerImage(t)
	_, c := startServer(t, nil)
	task := api.NewTask("web", "docker")
	task.Config = map[string]any{"image": imageTag, "ports": []any{"http"}}
	task.Require(&api.Resources{CPU: pointer(100), MemoryMB: pointer(64)})
	task.KillTimeout = pointer(5 * time.Second)
	job := serviceJob("web", 1, task)
	job.TaskGroups[0].Networks = []*api.NetworkResource{{DynamicPorts: []api.Port{{Label: "http", To: 8080}}}}
	register(t, c, job)
	a := runningAllocs(t, c, "web", 1)[0]

	addr := hostPort(t, a, "http")
	waitFor(t, 15*time.Second, "GET http://"+addr, func() (bool, string) {
		resp, err := http.Get("http://" + addr + "/")
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode == 200 && string(b) == "hello from web\n", fmt.Sprintf("%d %q", resp.StatusCode, b)
	})
	if len(containersOf(t, a.ID)) != 1 {
		t.Fatalf("containers of %s: %v", a.ID, containersOf(t, a.ID))
	}

	// Stopping the job removes the container.
	if _, _, err := c.Jobs().Deregister("web", false, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "container of "+a.ID+" gone", func() (bool, string) {
		ids := containersOf(t, a.ID)
		return len(ids) == 0, fmt.Sprint(ids)
	})
}

// TestDockerPullFailureNamesTheRegistry: an image the node lacks is
// pulled, the task's events say so ("Driver": Downloading image), and a
// registry that cannot serve it fails the task with an event naming the
// image and the registry. (The driver's own tests pull from a real
// registry with credentials.)
func TestDockerPullFailureNamesTheRegistry(t *testing.T) {
	t.Parallel()
	requireDockerImage(t)
	_, c := startServer(t, nil)
	image := "127.0.0.1:1/drover-e2e/missing:v1"
	task := api.NewTask("web", "docker")
	task.Config = map[string]any{"image": image}
	task.Require(&api.Resources{CPU: pointer(100), MemoryMB: pointer(64)})
	job := serviceJob("pullfail", 1, task)
	job.TaskGroups[0].RestartPolicy = &api.RestartPolicy{Attempts: pointer(0), Mode: pointer("fail"), Interval: pointer(time.Minute), Delay: pointer(time.Second)}
	job.TaskGroups[0].ReschedulePolicy = &api.ReschedulePolicy{Attempts: pointer(0), Unlimited: pointer(false)}
	register(t, c, job)
	waitFor(t, 60*time.Second, "the pull to fail naming the registry", func() (bool, string) {
		allocs := jobAllocs(t, c, "pullfail")
		if len(allocs) == 0 {
			return false, "no alloc"
		}
		ts := allocs[0].TaskStates["web"]
		if ts == nil {
			return false, allocs[0].ClientStatus
		}
		var downloading, failed bool
		for _, e := range ts.Events {
			downloading = downloading || (e.Type == "Driver" && e.DisplayMessage == "Downloading image "+image)
			failed = failed || (e.Type == api.TaskDriverFailure && strings.Contains(e.DisplayMessage, `pull image "`+image+`" from registry 127.0.0.1:1`))
		}
		return downloading && failed, taskSummary(allocs[0])
	})
}
