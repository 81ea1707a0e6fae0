package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// taskEvents returns the events of task in the alloc, and its state.
func taskEvents(c *api.Client, allocID, task string) (string, []*api.TaskEvent, error) {
	a, _, err := c.Allocations().Info(allocID, nil)
	if err != nil {
		return "", nil, err
	}
	ts := a.TaskStates[task]
	if ts == nil {
		return "", nil, fmt.Errorf("no state for task %s", task)
	}
	return ts.State, ts.Events, nil
}

// A task's kill_signal is what the client sends it on stop, through a
// real client: the task traps SIGINT only and exits 7 on it (SIGTERM, the
// default, would kill the shell without an exit code of its own).
func TestKillSignal_TheTaskGetsItsSignal(t *testing.T) {
	_, c := clientTestAgent(t)
	job := shellJob("killsig", `trap 'exit 7' INT; while true; do sleep 0.1; done`)
	job.TaskGroups[0].Tasks[0].KillSignal = "SIGINT"
	job.TaskGroups[0].Tasks[0].KillTimeout = pointer(10 * time.Second)
	alloc := runJob(t, c, job)
	if _, _, err := c.Jobs().Deregister("killsig", false, nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, func() string {
		state, events, err := taskEvents(c, alloc.ID, "t")
		if err != nil {
			return err.Error()
		}
		for _, e := range events {
			if e.Type == "Killed" {
				if e.ExitCode != 7 || e.Signal != 0 {
					return fmt.Sprintf("killed with exit code %d, signal %d: not by the trapped SIGINT", e.ExitCode, e.Signal)
				}
				if state == "dead" {
					return ""
				}
			}
		}
		return fmt.Sprintf("task %s, events %v", state, eventTypes(events))
	})
}

// When a leader task finishes, the client stops its siblings, through a
// real client: the sibling that would sleep for ever is killed with
// "Leader Task Dead" and the alloc completes.
func TestTaskLeader_FinishingStopsTheSiblings(t *testing.T) {
	_, c := clientTestAgent(t)
	job := shellJob("leader", `sleep 1; exit 0`)
	job.Type = pointer("batch")
	job.TaskGroups[0].Tasks[0].Leader = true
	sibling := api.NewTask("sibling", "raw_exec")
	sibling.Config = map[string]any{"command": "/bin/sh", "args": []any{"-c", "exec sleep 1000"}}
	sibling.Require(&api.Resources{CPU: pointer(50), MemoryMB: pointer(32)})
	sibling.KillTimeout = pointer(time.Second)
	job.TaskGroups[0].AddTask(sibling)
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, func() string {
		stubs, _, err := c.Jobs().Allocations("leader", false, nil)
		if err != nil || len(stubs) == 0 {
			return fmt.Sprint("no alloc ", err)
		}
		if stubs[0].ClientStatus != "complete" {
			return allocProgress(stubs)
		}
		state, events, err := taskEvents(c, stubs[0].ID, "sibling")
		if err != nil {
			return err.Error()
		}
		for _, e := range events {
			if e.Type == "Leader Task Dead" && state == "dead" {
				return ""
			}
		}
		return fmt.Sprintf("sibling %s, events %v", state, eventTypes(events))
	})
}

func eventTypes(events []*api.TaskEvent) []string {
	out := make([]string, 0, len(events))
	for _, e := range events {
		out = append(out, e.Type)
	}
	return out
}
