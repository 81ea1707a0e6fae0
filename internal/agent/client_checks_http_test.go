package agent

import (
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

func TestAllocChecks_ReportsEachCheck(t *testing.T) {
	_, c := clientTestAgent(t)
	live, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadPort := strconv.Itoa(dead.Addr().(*net.TCPAddr).Port)
	dead.Close()
	job := shellJob("checked", `sleep 100`)
	tg := job.TaskGroups[0]
	tg.Services = []*api.Service{{
		Name: "svc", Provider: "nomad", PortLabel: strconv.Itoa(live.Addr().(*net.TCPAddr).Port),
		Checks: []api.ServiceCheck{
			{Name: "up", Type: "tcp", Interval: time.Second, Timeout: time.Second},
			{Name: "down", Type: "http", Path: "/health", PortLabel: deadPort, Interval: time.Second, Timeout: time.Second},
		},
	}}
	// Checks decide health; don't let a failing one hold the test up.
	tg.Update = &api.UpdateStrategy{HealthCheck: pointer("task_states")}
	alloc := runJob(t, c, job)
	eventually(t, 10*time.Second, func() string {
		got, err := c.Allocations().Checks(alloc.ID, nil)
		if err != nil || len(got) != 2 {
			return fmt.Sprintf("checks: %+v %v", got, err)
		}
		up, down := got["group/svc/up"], got["group/svc/down"]
		if up.Status != "success" || up.Check != "up" || up.Service != "svc" || up.Group != "checked.g[0]" || up.Timestamp == 0 {
			return fmt.Sprintf("up: %+v", up)
		}
		if down.Status != "failure" || down.Output == "" {
			return fmt.Sprintf("down: %+v", down)
		}
		return ""
	})
}
