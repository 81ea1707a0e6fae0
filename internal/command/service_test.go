package command

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// TestServiceCommands: a raw_exec task's native service is listed, shown
// with its address and health, and deleted from the catalog.
func TestServiceCommands(t *testing.T) {
	addr, c := clientAgent(t)
	job, task := sleepingJob("svc")
	task.Services = []*api.Service{{Name: "web", Provider: "nomad", PortLabel: "8080", Tags: []string{"v1", "blue"},
		Checks: []api.ServiceCheck{{Name: "ok", Type: "script", Command: "/bin/true", Interval: time.Second, Timeout: time.Second}}}}
	tg := api.NewTaskGroup("g", 1).AddTask(task)
	tg.Update = &api.UpdateStrategy{HealthCheck: new("task_states")}
	job.AddTaskGroup(tg)
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	var regs []*api.ServiceRegistration
	testutil.WaitFor(t, 20*time.Second, "the web registration", func() (bool, string) {
		regs, _, _ = c.Services().Get("web", nil)
		return len(regs) == 1, "none yet"
	})

	list := run(t, "service", "list", "-address", addr)
	if list.code != 0 || !strings.Contains(list.stdout, "Service Name") || !strings.Contains(list.stdout, "web") || !strings.Contains(list.stdout, "[blue,v1]") {
		t.Fatalf("service list: %+v", list)
	}
	testutil.WaitFor(t, 20*time.Second, "service info with a passing health", func() (bool, string) {
		info := run(t, "service", "info", "-address", addr, "web")
		return info.code == 0 && strings.Contains(info.stdout, ":8080") && strings.Contains(info.stdout, "passing") &&
			strings.Contains(info.stdout, regs[0].AllocID[:8]), info.stdout + info.stderr
	})
	verbose := run(t, "service", "info", "-address", addr, "-verbose", "web")
	if !strings.Contains(verbose.stdout, regs[0].ID) || !strings.Contains(verbose.stdout, regs[0].AllocID) {
		t.Fatalf("service info -verbose: %+v", verbose)
	}
	if r := run(t, "service", "info", "-address", addr, "-json", "web"); !strings.Contains(r.stdout, `"ServiceName": "web"`) {
		t.Fatalf("service info -json: %+v", r)
	}

	del := run(t, "service", "delete", "-address", addr, "web", regs[0].ID)
	if del.code != 0 || !strings.Contains(del.stdout, "Successfully deleted") {
		t.Fatalf("service delete: %+v", del)
	}
	if r := run(t, "service", "info", "-address", addr, "web"); r.code == 0 || !strings.Contains(r.stderr, "no registrations") {
		t.Fatalf("info after delete: %+v", r)
	}
	if r := run(t, "service", "delete", "-address", addr, "web"); r.code == 0 {
		t.Fatalf("delete without an ID: %+v", r)
	}
}
