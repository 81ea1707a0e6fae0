package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestFailingTaskRestartsThenReschedulesOnTheOtherNode: a task exiting 3
// restarts twice (its restart policy), then fails the alloc; the server
// writes an alloc-failure eval and, per the reschedule policy, places a
// replacement on the other node (the scheduler penalises the failed one).
func TestFailingTaskRestartsThenReschedulesOnTheOtherNode(t *testing.T) {
	t.Parallel()
	first, c := startServer(t, nil)
	second := startClient(t, "second", first.RPCAddr(), c)
	nodes := map[string]string{first.Client().NodeID(): "first", second.Client().NodeID(): "second"}

	job := serviceJob("crash", 1, shellTask("raw_exec", `echo run; exit 3`))
	tg := job.TaskGroups[0]
	tg.RestartPolicy = &api.RestartPolicy{Attempts: pointer(2), Interval: pointer(time.Minute), Delay: pointer(100 * time.Millisecond), Mode: pointer("fail")}
	tg.ReschedulePolicy = &api.ReschedulePolicy{Attempts: pointer(1), Interval: pointer(time.Hour), Delay: pointer(5 * time.Second),
		DelayFunction: pointer("constant"), Unlimited: pointer(false)}
	register(t, c, job)

	var failed, next *api.Allocation
	waitFor(t, 40*time.Second, "a failed alloc and its replacement", func() (bool, string) {
		failed, next = nil, nil
		all := jobAllocs(t, c, "crash")
		for _, a := range all {
			if a.PreviousAllocation == "" && a.ClientStatus == api.AllocClientStatusFailed {
				failed = a
			}
		}
		for _, a := range all {
			if failed != nil && a.PreviousAllocation == failed.ID {
				next = a
			}
		}
		return failed != nil && next != nil, fmt.Sprintf("%d allocs", len(all))
	})

	ts := failed.TaskStates["t"]
	if ts == nil || ts.Restarts != 2 || !ts.Failed {
		t.Fatalf("failed alloc's task state: %+v", ts)
	}
	var restarting, notRestarting int
	for _, e := range ts.Events {
		switch e.Type {
		case api.TaskRestarting:
			restarting++
		case api.TaskNotRestarting:
			notRestarting++
		}
	}
	if restarting != 2 || notRestarting != 1 {
		t.Errorf("events: %d Restarting, %d Not Restarting; want 2 and 1 (%s)", restarting, notRestarting, taskSummary(failed))
	}
	if next.NodeID == failed.NodeID {
		t.Errorf("replacement placed on the failed alloc's node %s (%s)", nodes[next.NodeID], next.NodeID)
	}
	// The replacement comes from an alloc-failure eval (the one the
	// failure wrote, or its delayed follow-up, which keeps the trigger).
	e, _, err := c.Evaluations().Info(next.EvalID, nil)
	if err != nil || e.TriggeredBy != "alloc-failure" {
		t.Errorf("replacement's eval %s: %+v %v, want triggered by alloc-failure", next.EvalID, e, err)
	}
}
