package agent

import (
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// TestJobRestartReschedule_FollowsNextAllocation makes the calls of
// `job restart -reschedule` for one alloc: no active deployment, stop the
// alloc with ?no_shutdown_delay=true, then follow the stopped alloc's
// NextAllocation with blocking queries until the replacement runs, while
// no blocked eval reports placement failures for the group.
func TestJobRestartReschedule_FollowsNextAllocation(t *testing.T) {
	_, c := clientTestAgent(t)
	job := shellJob("restart", "sleep 300")
	job.TaskGroups[0].Update = &api.UpdateStrategy{MinHealthyTime: pointer(100 * time.Millisecond)}
	old := runJob(t, c, job)
	testutil.WaitFor(t, 20*time.Second, "the job's deployment to finish", func() (bool, string) {
		deps, _, err := c.Jobs().Deployments("restart", true, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range deps {
			if d.Status == "running" || d.Status == "pending" || d.Status == "paused" {
				return false, "deployment " + d.Status
			}
		}
		return true, ""
	})

	resp, err := c.Allocations().Stop(old, &api.QueryOptions{Params: map[string]string{"no_shutdown_delay": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	replacement := followReplacement(t, c, old.ID)
	if replacement.PreviousAllocation != old.ID || replacement.ClientStatus != "running" {
		t.Fatalf("replacement %s: previous %q status %q", replacement.ID, replacement.PreviousAllocation, replacement.ClientStatus)
	}
	stopped, _, err := c.Allocations().Info(old.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stopped.DesiredStatus != "stop" || stopped.NextAllocation != replacement.ID || !*stopped.DesiredTransition.NoShutdownDelay {
		t.Fatalf("stopped alloc: desired %q next %q transition %+v", stopped.DesiredStatus, stopped.NextAllocation, stopped.DesiredTransition)
	}
	evals, _, err := c.Jobs().Evaluations("restart", &api.QueryOptions{WaitIndex: resp.LastIndex})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evals {
		if e.CreateIndex >= resp.LastIndex && e.Status == "blocked" && e.FailedTGAllocs["g"] != nil {
			t.Fatalf("blocked eval %s after the stop", e.ID)
		}
	}
}

// followReplacement is the CLI's monitorReplacementAlloc: a blocking read
// of the alloc, moving to its NextAllocation whenever one is set, until a
// replacement (not the original) is running.
func followReplacement(t *testing.T, c *api.Client, original string) *api.Allocation {
	t.Helper()
	current, q := original, &api.QueryOptions{WaitIndex: 1, WaitTime: time.Second}
	var replacement *api.Allocation
	// Each poll is one blocking read, as the CLI's loop makes.
	testutil.WaitFor(t, 20*time.Second, "a running replacement of "+original+" followed from NextAllocation", func() (bool, string) {
		a, meta, err := c.Allocations().Info(current, q)
		if err != nil {
			t.Fatal(err)
		}
		if a.NextAllocation != "" {
			current, q.WaitIndex = a.NextAllocation, 1
			return false, "at " + current
		}
		if a.ID != original && a.ClientStatus == "running" {
			replacement = a
			return true, ""
		}
		q.WaitIndex = meta.LastIndex
		return false, "at " + current
	})
	return replacement
}
