package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// The pause image docker tasks of a bridge group join: Nomad's default
// infra_image cannot be pulled here (offline), so the agent's docker
// plugin is pointed at one built FROM scratch from the docker driver's
// testdata/pause program.
var (
	pauseTag   = "drover-e2e-pause:" + strconv.Itoa(os.Getpid())
	pauseOnce  sync.Once
	pauseErr   error
	pauseBuilt bool
)

func requirePauseImage(t testing.TB) {
	t.Helper()
	pauseOnce.Do(func() {
		dir, err := os.MkdirTemp(testTempDir, "pause-")
		if err != nil {
			pauseErr = err
			return
		}
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "pause"), "../client/drivers/docker/testdata/pause")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
		if out, err := cmd.CombinedOutput(); err != nil {
			pauseErr = fmt.Errorf("go build: %v: %s", err, out)
			return
		}
		df := "FROM scratch\nCOPY pause /pause\nENTRYPOINT [\"/pause\"]\n"
		if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(df), 0o644); err != nil {
			pauseErr = err
			return
		}
		if out, err := docker("build", "-q", "-t", pauseTag, dir); err != nil {
			pauseErr = fmt.Errorf("docker build: %v: %s", err, out)
			return
		}
		pauseBuilt = true
	})
	if pauseErr != nil {
		t.Fatalf("build pause image: %v", pauseErr)
	}
}

// withInfraImage configures the agent's docker plugin with the test
// pause image.
func withInfraImage(cfg *config.Config) {
	cfg.Plugins = append(cfg.Plugins, config.PluginConfig{Name: "docker", Config: map[string]any{"infra_image": pauseTag}})
}

// dockerBridgeJob is a bridge group with port "http" mapped to 8080: a
// docker web server and a raw_exec client that fetches it over localhost
// (the namespace the two share) and prints what it got.
func dockerBridgeJob(id string) *api.Job {
	web := api.NewTask("web", "docker")
	web.Config = map[string]any{"image": imageTag, "ports": []any{"http"}}
	web.Require(&api.Resources{CPU: pointer(50), MemoryMB: pointer(64)})
	web.KillTimeout = pointer(5 * time.Second)
	job := serviceJob(id, 1, web)
	client := shellTask("raw_exec", `while ! out=$(curl -sf http://localhost:8080/); do sleep 0.2; done; `+
		`echo "got $out"; echo "alloc ip $NOMAD_ALLOC_IP_http"; exec sleep 1000`)
	client.Name = "client"
	tg := job.TaskGroups[0]
	tg.AddTask(client)
	tg.Networks = []*api.NetworkResource{{Mode: "bridge", Hostname: "web-host", DynamicPorts: []api.Port{{Label: "http", To: 8080}}}}
	return job
}

// pauseContainersOf lists the alloc's pause containers.
func pauseContainersOf(t *testing.T, allocID string) []string {
	t.Helper()
	out, err := docker("ps", "-a", "-q", "--filter", "label=com.drover.alloc_id="+allocID, "--filter", "label=com.drover.infra=true")
	if err != nil {
		t.Fatalf("docker ps: %v: %s", err, out)
	}
	return strings.Fields(out)
}

// TestBridgeDockerTaskSharesTheNamespaceWithARawExecTask: the docker task
// of a bridge group runs in the alloc's namespace (held by a pause
// container), a raw_exec task of the same alloc reaches it on localhost,
// the host reaches it on the mapped port, and stopping the job removes
// the pause container, the namespace, the veth and the rules.
func TestBridgeDockerTaskSharesTheNamespaceWithARawExecTask(t *testing.T) {
	requireBridge(t)
	requireDockerImage(t)
	requirePauseImage(t)
	_, c := startServer(t, withInfraImage)
	register(t, c, dockerBridgeJob("dockbridge"))
	a := runningAllocs(t, c, "dockbridge", 1)[0]

	var st *api.AllocNetworkStatus
	waitFor(t, 20*time.Second, "network status of "+a.ID, func() (bool, string) {
		full, _, err := c.Allocations().Info(a.ID, nil)
		if err != nil {
			return false, err.Error()
		}
		st = full.NetworkStatus
		return st != nil && st.Address != "", fmt.Sprintf("%+v", st)
	})
	if !strings.HasPrefix(st.Address, "172.26.") {
		t.Fatalf("network status %+v, want an address in 172.26.64.0/20", st)
	}
	var out string
	waitFor(t, 30*time.Second, "client task's output", func() (bool, string) {
		out = readLogs(t, c, a, "client", "stdout")
		return strings.Contains(out, "alloc ip"), out
	})
	if !strings.Contains(out, "got hello from web") || !strings.Contains(out, "alloc ip "+st.Address+"\n") {
		t.Fatalf("client task printed %q", out)
	}
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

	// One pause container, holding the namespace both tasks are in; the
	// web container joined it and Docker published no port of its own.
	pauses := pauseContainersOf(t, a.ID)
	if len(pauses) != 1 {
		t.Fatalf("pause containers of %s: %v", a.ID, pauses)
	}
	var web string
	for _, id := range containersOf(t, a.ID) {
		if id != pauses[0] {
			web = id
		}
	}
	mode, err := docker("inspect", "-f", "{{.HostConfig.NetworkMode}} {{len .HostConfig.PortBindings}}", web)
	if err != nil || !strings.HasPrefix(mode, "container:"+pauses[0]) || !strings.HasSuffix(mode, " 0") {
		t.Fatalf("web container %s: %q, %v", web, mode, err)
	}
	if host, err := docker("inspect", "-f", "{{.Config.Hostname}}", pauses[0]); err != nil || host != "web-host" {
		t.Fatalf("pause container's hostname %q, %v", host, err)
	}
	if ns, veths, rules := bridgeFootprint(t, []string{a.ID}, []string{st.Address}); ns != 1 || veths < 1 || rules == 0 {
		t.Fatalf("while running: %d namespaces, %d veths, %d rules", ns, veths, rules)
	}

	if _, _, err := c.Jobs().Deregister("dockbridge", false, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "containers, namespace, veth and rules of the stopped alloc gone", func() (bool, string) {
		ids := containersOf(t, a.ID)
		ns, veths, rules := bridgeFootprint(t, []string{a.ID}, []string{st.Address})
		return len(ids) == 0 && ns == 0 && veths == 0 && rules == 0,
			fmt.Sprintf("containers %v, %d namespaces, %d veths, %d rules", ids, ns, veths, rules)
	})
}

// BenchmarkDockerAllocStart is the time from registering a one-task
// docker job to its alloc running, on the host's network and in a bridge
// group (a pause container, the CNI plugins, then the task joining it).
// Run with
//
//	go test -run '^$' -bench DockerAllocStart -benchtime 5x ./internal/e2e/
func BenchmarkDockerAllocStart(b *testing.B) {
	requireDockerImage(b)
	for _, mode := range []string{"host", "bridge"} {
		b.Run(mode, func(b *testing.B) {
			if mode == "bridge" {
				requireBridge(b)
				requirePauseImage(b)
			}
			a := startAgent(b, "bench", withInfraImage)
			c, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr()})
			if err != nil {
				b.Fatal(err)
			}
			testutil.WaitFor(b, 20*time.Second, "node ready", func() (bool, string) {
				n, _, err := c.Nodes().Info(a.Client().NodeID(), nil)
				return err == nil && n.Status == "ready", fmt.Sprint(err)
			})
			for i := 0; i < b.N; i++ {
				id := fmt.Sprintf("bench-%s-%d", mode, i)
				web := api.NewTask("web", "docker")
				web.Config = map[string]any{"image": imageTag, "ports": []any{"http"}}
				web.Require(&api.Resources{CPU: pointer(50), MemoryMB: pointer(64)})
				web.KillTimeout = pointer(5 * time.Second)
				job := serviceJob(id, 1, web)
				job.TaskGroups[0].Networks = []*api.NetworkResource{{Mode: mode, DynamicPorts: []api.Port{{Label: "http", To: 8080}}}}
				if _, _, err := c.Jobs().Register(job, nil); err != nil {
					b.Fatal(err)
				}
				var allocID string
				testutil.WaitFor(b, 60*time.Second, id+" running", func() (bool, string) {
					allocs, _, err := c.Jobs().Allocations(id, true, nil)
					if err != nil || len(allocs) != 1 {
						return false, fmt.Sprint(err, allocs)
					}
					allocID = allocs[0].ID
					return allocs[0].ClientStatus == api.AllocClientStatusRunning, allocs[0].ClientStatus
				})
				b.StopTimer()
				if _, _, err := c.Jobs().Deregister(id, true, nil); err != nil {
					b.Fatal(err)
				}
				testutil.WaitFor(b, 60*time.Second, id+"'s containers gone", func() (bool, string) {
					out, err := docker("ps", "-a", "-q", "--filter", "label=com.drover.alloc_id="+allocID)
					return err == nil && out == "", out
				})
				b.StartTimer()
			}
		})
	}
}

// TestBridgeDockerAllocSurvivesAClientRestart: a client agent SIGKILLed
// and started again re-attaches to the alloc's pause container (found by
// its labels) and keeps the one it had, the task stays reachable on the
// mapped port, and stopping the job afterwards still removes everything.
func TestBridgeDockerAllocSurvivesAClientRestart(t *testing.T) {
	requireBridge(t)
	requireDockerImage(t)
	requirePauseImage(t)
	bin := requireDrover(t)
	srv, c := startServer(t, func(cfg *config.Config) { cfg.Client.Enabled = false })
	file, httpAddr := writeClientConfig(t, "dockbridge-restart", srv.RPCAddr())
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "plugin \"docker\" {\n  config {\n    infra_image = %q\n  }\n}\n", pauseTag)
	f.Close()
	p := &agentProc{bin: bin, configFile: file, logFile: filepath.Join(t.TempDir(), "agent.log"), httpAddr: httpAddr}
	p.start(t)
	t.Cleanup(func() { p.dumpLogOnFailure(t); p.stop(t, syscall.SIGKILL) })
	nodeID := nodeNamed(t, c, "dockbridge-restart")

	job := dockerBridgeJob("dockrestart")
	job.TaskGroups[0].Tasks = job.TaskGroups[0].Tasks[:1] // the web task
	register(t, c, pinTo(job, nodeID))
	a := runningAllocs(t, c, "dockrestart", 1)[0]
	addr := hostPort(t, a, "http")
	get := func() (bool, string) {
		resp, err := http.Get("http://" + addr + "/")
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b) == "hello from web\n", string(b)
	}
	waitFor(t, 15*time.Second, "GET http://"+addr, get)
	pauses := pauseContainersOf(t, a.ID)
	if len(pauses) != 1 {
		t.Fatalf("pause containers: %v", pauses)
	}

	p.stop(t, syscall.SIGKILL)
	p.start(t)
	waitFor(t, 20*time.Second, "restarted agent serving the alloc", func() (bool, string) {
		resp, err := http.Get("http://" + httpAddr + "/v1/client/allocation/" + a.ID + "/stats")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == 200, resp.Status
	})
	waitFor(t, 15*time.Second, "GET http://"+addr+" after the restart", get)
	if after := pauseContainersOf(t, a.ID); len(after) != 1 || after[0] != pauses[0] {
		t.Fatalf("pause containers after the restart: %v, before: %v", after, pauses)
	}
	full, _, err := c.Allocations().Info(a.ID, nil)
	if err != nil || full.ClientStatus != api.AllocClientStatusRunning {
		t.Fatalf("alloc after the restart: %v %s", err, taskSummary(full))
	}

	if _, _, err := c.Jobs().Deregister("dockrestart", false, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "containers and namespace of the stopped alloc gone", func() (bool, string) {
		ids := containersOf(t, a.ID)
		ns, _, _ := bridgeFootprint(t, []string{a.ID}, nil)
		return len(ids) == 0 && ns == 0, fmt.Sprintf("containers %v, %d namespaces", ids, ns)
	})
}
