package agent

import (
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// TestNodeDrain_DeadlineWithNowhereToGo drains the only node of a cluster
// with a deadline. Its service alloc has nowhere to go, so it keeps running
// until the deadline; then it is stopped, its replacement blocks (a blocked
// eval with the group's failed placement), and the drain completes: no
// drain strategy, still ineligible, and the node events say so.
func TestNodeDrain_DeadlineWithNowhereToGo(t *testing.T) {
	a, c := testAgent(t, allSchedulers)
	node := simNode(1, 4000, 8192)
	if _, err := a.Server().RegisterNode(node); err != nil {
		t.Fatal(err)
	}
	job := testAPIJob("web")
	job.TaskGroups[0].Count = pointer(1)
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	orig := waitAllocs(t, c, "web", 1)[0]
	if _, err := c.Nodes().UpdateDrain(node.ID, &api.DrainSpec{Deadline: 2 * time.Second}, false, nil); err != nil {
		t.Fatal(err)
	}

	var info *api.Node
	testutil.WaitFor(t, 20*time.Second, "the drain to complete at its deadline", func() (bool, string) {
		var err error
		if info, _, err = c.Nodes().Info(node.ID, nil); err != nil {
			t.Fatal(err)
		}
		return info.DrainStrategy == nil, "still draining"
	})
	if info.SchedulingEligibility != "ineligible" {
		t.Fatalf("eligibility after the drain: %q", info.SchedulingEligibility)
	}
	if !hasNodeEvent(info, "Node drain strategy set") || !hasNodeEvent(info, "Node drain complete") {
		t.Fatalf("node events %s", mustJSON(info.Events))
	}
	stopped, _, err := c.Allocations().Info(orig.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stopped.DesiredStatus != "stop" {
		t.Fatalf("original alloc desired %q after the deadline", stopped.DesiredStatus)
	}
	testutil.WaitFor(t, 10*time.Second, "a blocked eval for the replacement", func() (bool, string) {
		evals, _, err := c.Jobs().Evaluations("web", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evals {
			if e.Status == "blocked" && e.FailedTGAllocs["web"] != nil {
				return true, ""
			}
		}
		return false, "no blocked eval"
	})
	if live := waitAllocs(t, c, "web", 0); len(live) != 0 {
		t.Fatalf("live allocs %d", len(live))
	}
}

func hasNodeEvent(n *api.Node, message string) bool {
	for _, e := range n.Events {
		if e.Message == message {
			return true
		}
	}
	return false
}
