package agent

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// servedHealth reads /v1/service/:name raw, for the Health field Nomad's
// client does not decode.
func servedHealth(t *testing.T, a *Agent, name string) []string {
	t.Helper()
	code, body := rawGet(t, a.HTTPAddr(), "/v1/service/"+name, nil)
	if code != 200 {
		t.Fatalf("GET service %s: %d %s", name, code, body)
	}
	var regs []struct{ ServiceName, Health string }
	if err := json.Unmarshal([]byte(body), &regs); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range regs {
		out = append(out, r.Health)
	}
	return out
}

// A script check runs inside the task (its environment is the task's)
// and its result becomes the registration's health: critical until the
// task writes its marker, then passing.
func TestScriptCheck_RunsInTheTaskAndSetsServiceHealth(t *testing.T) {
	a, c := clientTestAgent(t)
	job := shellJob("scripted", `sleep 2; touch "$NOMAD_TASK_DIR/up"; sleep 100`)
	tg := job.TaskGroups[0]
	tg.Update = &api.UpdateStrategy{HealthCheck: pointer("task_states")}
	tg.Tasks[0].Services = []*api.Service{{
		Name: "scripted", Provider: "nomad", PortLabel: "1234",
		Checks: []api.ServiceCheck{{Name: "marker", Type: "script", Command: "/bin/sh",
			Args:     []string{"-c", `if [ -f "$NOMAD_TASK_DIR/up" ]; then echo up in $NOMAD_TASK_NAME; else echo down; exit 2; fi`},
			Interval: time.Second, Timeout: 2 * time.Second}},
	}}
	alloc := runJob(t, c, job)
	eventually(t, 10*time.Second, func() string {
		if h := servedHealth(t, a, "scripted"); len(h) != 1 || h[0] != "critical" {
			return fmt.Sprintf("health before the marker: %v", h)
		}
		return ""
	})
	eventually(t, 15*time.Second, func() string {
		got, err := c.Allocations().Checks(alloc.ID, nil)
		if err != nil {
			return err.Error()
		}
		r := got["task/t/scripted/marker"]
		if r.Status != "success" || r.Output != "up in t" || r.Task != "t" {
			return fmt.Sprintf("check: %+v", r)
		}
		if h := servedHealth(t, a, "scripted"); len(h) != 1 || h[0] != "passing" {
			return fmt.Sprintf("health after the marker: %v", h)
		}
		return ""
	})
}

// An http check that never passes, with check_restart, restarts the task
// once limit failures follow the grace; the restart counts against the
// restart policy.
func TestCheckRestart_RestartsTheTaskWhoseCheckFails(t *testing.T) {
	_, c := clientTestAgent(t)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadPort := strconv.Itoa(dead.Addr().(*net.TCPAddr).Port)
	dead.Close()
	job := shellJob("restarted", `echo started; sleep 100`)
	tg := job.TaskGroups[0]
	tg.Update = &api.UpdateStrategy{HealthCheck: pointer("task_states")}
	tg.RestartPolicy = &api.RestartPolicy{Attempts: pointer(5), Interval: pointer(10 * time.Minute),
		Delay: pointer(100 * time.Millisecond), Mode: pointer("fail")}
	tg.Tasks[0].Services = []*api.Service{{
		Name: "flaky", Provider: "nomad", PortLabel: deadPort,
		Checks: []api.ServiceCheck{{Name: "health", Type: "http", Path: "/health", Interval: time.Second, Timeout: time.Second,
			CheckRestart: &api.CheckRestart{Limit: 2, Grace: pointer(time.Second)}}},
	}}
	alloc := runJob(t, c, job)
	eventually(t, 20*time.Second, func() string {
		a, _, err := c.Allocations().Info(alloc.ID, nil)
		if err != nil {
			return err.Error()
		}
		ts := a.TaskStates["t"]
		if ts == nil || ts.Restarts < 1 {
			return fmt.Sprintf("task state: %+v", ts)
		}
		for _, ev := range ts.Events {
			if ev.Type == "Restart Signal" && strings.Contains(ev.DisplayMessage, `check "health" unhealthy`) {
				return ""
			}
		}
		return "no Restart Signal event naming the check"
	})
}
