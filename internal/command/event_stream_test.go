package command

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func TestEventStream_PrintsFilteredEvents(t *testing.T) {
	addr, c := testAgent(t, nil)
	for _, id := range []string{"web", "api"} {
		job := api.NewServiceJob(id, id, "global", 50)
		job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(api.NewTask("t", "mock")))
		if _, _, err := c.Jobs().Register(job, nil); err != nil {
			t.Fatal(err)
		}
	}
	r := run(t, "event", "stream", "-address", addr, "-topic", "Job:api", "-n", "1")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	fields := strings.Split(strings.TrimSpace(r.stdout), "\t")
	if len(fields) != 4 || fields[1] != "Job" || fields[2] != "JobRegistered" || fields[3] != "api" {
		t.Fatalf("output %q, want one Job/JobRegistered/api line", r.stdout)
	}
	if bad := run(t, "event", "stream", "-address", addr, "-topic", "Nope"); bad.code == 0 || !strings.Contains(bad.stderr, "topic") {
		t.Fatalf("unknown topic: exit %d, stderr %q", bad.code, bad.stderr)
	}
}
