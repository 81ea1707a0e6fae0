package agent

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// drainJob is mockServiceJob with a group service "<id>-web" and an hour
// of shutdown_delay on the group and on its task: long enough that a test
// sees the drain without racing it.
func drainJob(id string) *api.Job {
	job := mockServiceJob(id, 1)
	tg := job.TaskGroups[0]
	tg.ShutdownDelay = pointer(time.Hour)
	tg.Services = []*api.Service{{Name: id + "-web", Provider: "nomad"}}
	tg.Tasks[0].ShutdownDelay = time.Hour
	return job
}

// stopDraining runs drainJob(id), stops the job, and waits until its
// alloc's service has left the catalog; it returns the stopped alloc.
func stopDraining(t *testing.T, c *api.Client, id string) *api.Allocation {
	t.Helper()
	alloc := runJob(t, c, drainJob(id))
	testutil.WaitFor(t, 20*time.Second, "the alloc's service registered", func() (bool, string) {
		regs, _, err := c.Services().Get(id+"-web", nil)
		return err == nil && len(regs) == 1 && regs[0].AllocID == alloc.ID, fmt.Sprintf("%v %d", err, len(regs))
	})
	if _, _, err := c.Jobs().Deregister(id, false, nil); err != nil {
		t.Fatal(err)
	}
	var stopped *api.Allocation
	testutil.WaitFor(t, 20*time.Second, "the stopped alloc's service gone", func() (bool, string) {
		regs, _, err := c.Services().Get(id+"-web", nil)
		if err != nil || len(regs) != 0 {
			return false, fmt.Sprintf("%v, %d registrations", err, len(regs))
		}
		stopped, _, err = c.Allocations().Info(alloc.ID, nil)
		return err == nil && stopped.DesiredStatus == "stop", fmt.Sprintf("%v", err)
	})
	return stopped
}

func taskEventTypes(a *api.Allocation, task string) []string {
	var out []string
	if ts := a.TaskStates[task]; ts != nil {
		for _, e := range ts.Events {
			out = append(out, e.Type)
		}
	}
	return out
}

// A stopped job's service leaves the catalog while its task keeps running
// through the group's shutdown_delay; `alloc stop -no-shutdown-delay`
// then cuts the drain short and the task is killed, recording that its
// own delay was skipped.
func TestShutdownDelay_ServiceLeavesWhileTheTaskDrains(t *testing.T) {
	_, c := clientTestAgent(t)
	stopped := stopDraining(t, c, "drain")
	if stopped.ClientStatus != "running" || stopped.TaskStates["t"].State != "running" || slices.Contains(taskEventTypes(stopped, "t"), "Killing") {
		t.Fatalf("during the group's shutdown_delay: client status %q, task events %v", stopped.ClientStatus, taskEventTypes(stopped, "t"))
	}

	if _, err := c.Allocations().Stop(stopped, &api.QueryOptions{Params: map[string]string{"no_shutdown_delay": "true"}}); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 20*time.Second, "the alloc complete", func() (bool, string) {
		a, _, err := c.Allocations().Info(stopped.ID, nil)
		if err != nil {
			return false, err.Error()
		}
		evs := taskEventTypes(a, "t")
		return a.ClientStatus == "complete" && slices.Contains(evs, "Skipping shutdown delay") && slices.Contains(evs, "Killed"),
			fmt.Sprintf("%s %v", a.ClientStatus, evs)
	})
}

// A dev agent's client going away kills its allocs without waiting for
// their shutdown_delay, even one already draining.
func TestShutdownDelay_DevClientShutdownDoesNotWait(t *testing.T) {
	a, c := clientTestAgent(t)
	stopDraining(t, c, "drain")
	done := make(chan error, 1)
	go func() { done <- a.Client().Destroy() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the client's Destroy waited for the alloc's shutdown_delay")
	}
}

// `job stop -no-shutdown-delay` (DELETE /v1/job/:id?no_shutdown_delay=true)
// stops the job's allocs without the group's or task's hour of
// shutdown_delay: the service leaves and the task is killed at once. The
// parameter used to be ignored, and the alloc drained for the hour.
func TestShutdownDelay_JobStopWithoutDelay(t *testing.T) {
	_, c := clientTestAgent(t)
	alloc := runJob(t, c, drainJob("nodelay"))
	if _, _, err := c.Jobs().DeregisterOpts("nodelay", &api.DeregisterOptions{NoShutdownDelay: true, EvalPriority: 70}, nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 20*time.Second, "the alloc complete without its delay", func() (bool, string) {
		a, _, err := c.Allocations().Info(alloc.ID, nil)
		if err != nil {
			return false, err.Error()
		}
		evs := taskEventTypes(a, "t")
		return a.ClientStatus == "complete" && slices.Contains(evs, "Skipping shutdown delay") && slices.Contains(evs, "Killed"),
			fmt.Sprintf("%s %v", a.ClientStatus, evs)
	})
	evals, _, err := c.Jobs().Evaluations("nodelay", nil)
	if err != nil {
		t.Fatal(err)
	}
	var priorities []int
	for _, e := range evals {
		if e.TriggeredBy == "job-deregister" {
			priorities = append(priorities, e.Priority)
		}
	}
	if !slices.Equal(priorities, []int{70}) {
		t.Fatalf("deregister evals' priorities %v, want [70] (eval_priority)", priorities)
	}
	if _, _, err := c.Jobs().DeregisterOpts("nodelay", &api.DeregisterOptions{EvalPriority: 101}, nil); err == nil || !strings.Contains(err.Error(), "eval_priority") {
		t.Fatalf("eval_priority 101: %v, want a 400 naming it", err)
	}
}
