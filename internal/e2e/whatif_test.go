package e2e

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestWhatIfDrain_PredictsTheRealDrainOnADevCluster: on three real agents,
// the what-if of draining the first node predicts where its allocs go;
// the real drain then moves them there.
func TestWhatIfDrain_PredictsTheRealDrainOnADevCluster(t *testing.T) {
	t.Parallel()
	first, c := startServer(t, nil)
	web := serviceJob("web", 3, shellTask("raw_exec", "sleep 300"))
	web.TaskGroups[0].Migrate = &api.MigrateStrategy{MaxParallel: pointer(3), HealthCheck: pointer("task_states"),
		MinHealthyTime: pointer(time.Second), HealthyDeadline: pointer(30 * time.Second)}
	register(t, c, web) // all three on first: the only node yet
	runningAllocs(t, c, "web", 3)
	second := startClient(t, "second", first.RPCAddr(), c)
	startClient(t, "third", first.RPCAddr(), c)
	ballast := serviceJob("ballast", 1, shellTask("raw_exec", "sleep 300"))
	ballast.TaskGroups[0].Tasks[0].Resources.MemoryMB = pointer(512)
	register(t, c, pinTo(ballast, second.Client().NodeID())) // second is fuller: binpack prefers it
	runningAllocs(t, c, "ballast", 1)
	// One per node: the drained node's cannot go anywhere.
	spread := serviceJob("spread", 3, shellTask("raw_exec", "sleep 300"))
	spread.Constrain(&api.Constraint{Operand: api.ConstraintDistinctHosts})
	register(t, c, spread)
	runningAllocs(t, c, "spread", 3)

	var predicted struct {
		Moves    []struct{ AllocID, Name, From, To string }
		Unplaced []struct {
			JobID, Group string
			Count        int
			Reason       string
		}
		Evals int
	}
	if _, err := c.Raw().Write("/v1/operator/whatif", map[string]any{"Kind": "drain", "Nodes": []string{first.Client().NodeID()}}, &predicted, nil); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range predicted.Moves {
		want = append(want, fmt.Sprintf("%s: %s -> %s", m.AllocID, m.From, m.To))
	}
	sort.Strings(want)
	t.Logf("predicted (%d evals):\n%s", predicted.Evals, strings.Join(want, "\n"))
	var wantBlocked []string
	for _, u := range predicted.Unplaced {
		wantBlocked = append(wantBlocked, fmt.Sprintf("%s/%s: %d unplaced: %s", u.JobID, u.Group, u.Count, u.Reason))
	}
	sort.Strings(wantBlocked)
	t.Logf("predicted unplaced:\n%s", strings.Join(wantBlocked, "\n"))
	if len(want) != 3 || len(wantBlocked) != 1 {
		t.Fatalf("predicted: %+v", predicted)
	}

	if _, err := c.Nodes().UpdateDrainOpts(first.Client().NodeID(), &api.DrainOptions{DrainSpec: &api.DrainSpec{Deadline: time.Hour}}, nil); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	nodes, _, err := c.Nodes().List(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		names[n.ID] = n.Name
	}
	var got []string
	waitFor(t, 60*time.Second, "the drain to move web's allocs", func() (bool, string) {
		got = got[:0]
		all := jobAllocs(t, c, "web")
		for _, a := range all {
			if a.NodeID != first.Client().NodeID() || a.DesiredStatus != api.AllocDesiredStatusStop {
				continue
			}
			for _, r := range all {
				if r.PreviousAllocation == a.ID && r.DesiredStatus == api.AllocDesiredStatusRun {
					got = append(got, fmt.Sprintf("%s: %s -> %s", a.ID, names[a.NodeID], names[r.NodeID]))
				}
			}
		}
		sort.Strings(got)
		return len(got) == 3, strings.Join(got, "; ")
	})
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the real drain moved\n%s\nthe what-if predicted\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// What the real drain leaves blocked: each job's blocked eval names
	// the groups and how many stay unplaced; the reason is the job's
	// explanation on the drained cluster.
	var blocked []string
	waitFor(t, 60*time.Second, "the drain to leave its blocked evals", func() (bool, string) {
		blocked = blocked[:0]
		for _, job := range []string{"web", "ballast", "spread"} {
			evals, _, err := c.Jobs().Evaluations(job, nil)
			if err != nil {
				return false, err.Error()
			}
			for _, e := range evals {
				if e.Status != api.EvalStatusBlocked {
					continue
				}
				for group, m := range e.FailedTGAllocs {
					var why struct {
						Groups []struct {
							Group    string
							Unplaced int
							Fixes    []string
						}
					}
					if _, err := c.Raw().Query("/v1/job/"+job+"/explain?group="+group, &why, nil); err != nil {
						return false, err.Error()
					}
					reason := ""
					if len(why.Groups) == 1 && len(why.Groups[0].Fixes) > 0 {
						reason = why.Groups[0].Fixes[0]
					}
					blocked = append(blocked, fmt.Sprintf("%s/%s: %d unplaced: %s", job, group, m.CoalescedFailures+1, reason))
				}
			}
		}
		sort.Strings(blocked)
		return len(blocked) == len(wantBlocked), strings.Join(blocked, "; ")
	})
	if strings.Join(blocked, "\n") != strings.Join(wantBlocked, "\n") {
		t.Fatalf("the real drain left blocked\n%s\nthe what-if predicted\n%s", strings.Join(blocked, "\n"), strings.Join(wantBlocked, "\n"))
	}
}
