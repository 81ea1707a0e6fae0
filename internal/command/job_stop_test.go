package command

import (
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// TestJobStop_NoShutdownDelayAndEvalPriority: `job stop -no-shutdown-delay
// -eval-priority 70` stops the job's alloc without its hour of
// shutdown_delay (the alloc completes at once) and writes the deregister
// eval at priority 70; both flags were missing.
func TestJobStop_NoShutdownDelayAndEvalPriority(t *testing.T) {
	addr, c := clientAgent(t)
	job, task := sleepingJob("draining")
	task.ShutdownDelay = time.Hour
	tg := api.NewTaskGroup("g", 1).AddTask(task)
	tg.ShutdownDelay = pointerTo(time.Hour)
	job.AddTaskGroup(tg)
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	var allocID string
	testutil.WaitFor(t, 20*time.Second, "a running alloc", func() (bool, string) {
		stubs, _, _ := c.Jobs().Allocations("draining", false, nil)
		if len(stubs) == 0 {
			return false, "none yet"
		}
		allocID = stubs[0].ID
		return stubs[0].ClientStatus == api.AllocClientStatusRunning, stubs[0].ClientStatus
	})
	r := run(t, "job", "stop", "-address", addr, "-no-shutdown-delay", "-eval-priority", "70", "-detach", "draining")
	if r.code != 0 {
		t.Fatalf("job stop: %+v", r)
	}
	testutil.WaitFor(t, 20*time.Second, "the alloc complete without its delay", func() (bool, string) {
		a, _, err := c.Allocations().Info(allocID, nil)
		if err != nil {
			return false, err.Error()
		}
		return a.ClientStatus == api.AllocClientStatusComplete, a.ClientStatus
	})
	evals, _, err := c.Jobs().Evaluations("draining", nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range evals {
		if e.TriggeredBy == "job-deregister" {
			found = true
			if e.Priority != 70 {
				t.Errorf("deregister eval %s has priority %d, want 70 (-eval-priority)", e.ID, e.Priority)
			}
		}
	}
	if !found {
		t.Fatalf("no deregister eval among %d (stop printed %q)", len(evals), r.stdout)
	}
}

func pointerTo[T any](v T) *T { return &v }
