package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

func TestAgentMonitor_StreamsLinesAtTheRequestedLevel(t *testing.T) {
	a, c := testAgent(t, nil) // the agent itself logs at INFO
	stop := make(chan struct{})
	defer close(stop)
	frames, errs := c.Agent().Monitor(stop, &api.QueryOptions{Params: map[string]string{"log_level": "debug"}})
	var line []byte
	testutil.WaitFor(t, 10*time.Second, "a monitor frame carrying the probe line", func() bool {
		for {
			select {
			case f, ok := <-frames:
				if !ok {
					frames = nil // ended: no probe line will come
				} else if f != nil && strings.Contains(string(f.Data), "monitor-probe") {
					line = f.Data
					return true
				}
			case err := <-errs:
				t.Fatalf("monitor: %v", err)
			default:
				// A debug line: below the agent's own level, above the
				// monitor's. Logged at each poll, since the monitor may
				// not be attached yet.
				a.log.Debug("monitor-probe", "n", 1)
				return false
			}
		}
	})
	if !strings.Contains(string(line), "level=DEBUG") {
		t.Fatalf("line lacks its level: %q", line)
	}
}

func TestAgentMonitor_BadLevel(t *testing.T) {
	_, c := testAgent(t, nil)
	_, errs := c.Agent().Monitor(nil, &api.QueryOptions{Params: map[string]string{"log_level": "loud"}})
	if err := <-errs; err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "log_level") {
		t.Fatalf("bad level: %v", err)
	}
}

func TestAgentHost_DescribesTheHost(t *testing.T) {
	_, c := testAgent(t, nil)
	t.Setenv("DROVER_TEST_SECRET_TOKEN", "hunter2")
	host, err := c.Agent().Host("", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if host.AgentID == "" || host.HostData == nil || !strings.HasPrefix(host.HostData.OS, "linux") || len(host.HostData.Disk) == 0 {
		t.Fatalf("host data incomplete: %+v", host)
	}
	if v := host.HostData.Environment["DROVER_TEST_SECRET_TOKEN"]; v != "<redacted>" {
		t.Fatalf("secret-looking variable served as %q", v)
	}
	if _, err := c.Agent().Host("", "some-other-node", nil); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("another node's host data: %v", err)
	}
}

func TestAgentPprof_OnlyWithEnableDebug(t *testing.T) {
	_, off := testAgent(t, func(cfg *config.Config) { cfg.DevMode, cfg.DataDir = false, t.TempDir() })
	if _, err := off.Agent().Lookup("heap", api.PprofOptions{}, nil); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("pprof without enable_debug: %v", err)
	}
	_, on := testAgent(t, func(cfg *config.Config) { cfg.EnableDebug = true })
	heap, err := on.Agent().Lookup("heap", api.PprofOptions{}, nil)
	if err != nil || len(heap) == 0 {
		t.Fatalf("heap profile: %d bytes, %v", len(heap), err)
	}
	if _, err := on.Agent().Lookup("nonsense", api.PprofOptions{}, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown profile: %v", err)
	}
}
