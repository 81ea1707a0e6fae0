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

	var predicted struct {
		Moves    []struct{ AllocID, Name, From, To string }
		Unplaced []struct {
			JobID  string
			Count  int
			Reason string
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
	if len(want) != 3 || len(predicted.Unplaced) != 0 {
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
}
