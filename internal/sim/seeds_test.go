package sim

import (
	"testing"
	"time"
)

func intp(v int) *int    { return &v }
func boolp(v bool) *bool { return &v }

// seedHeartbeatScenario is the first example of
// docs/design.md: a node running one
// system job and two service jobs misses its heartbeat; one service job
// (pinned to the node's rack) fits nowhere else; the other's plans are
// rejected until the attempt limit. Exactly 6 evals follow.
var seedHeartbeatScenario = &Scenario{
	Name: "seed-heartbeat-six-evals", Seed: 1,
	Nodes: []NodeGroup{
		{NodeSpec: NodeSpec{Name: "n1", Meta: map[string]string{"rack": "r1"}}},
		{NodeSpec: NodeSpec{Name: "peer", Meta: map[string]string{"rack": "r2"}}, Count: 3},
		{NodeSpec: NodeSpec{Name: "spare", Meta: map[string]string{"rack": "r2"}}, Deferred: true},
	},
	Jobs: []JobGroup{
		{JobSpec: JobSpec{Name: "sys", Type: "system"}},
		{JobSpec: JobSpec{Name: "pinned", Constraints: []ConstraintSpec{{Attribute: "meta.rack", Value: "r1"}}}},
		{JobSpec: JobSpec{Name: "spread", Count: 4, DistinctHosts: true}},
	},
	Steps: []Step{
		{At: 2 * time.Second, AddNodes: []string{"spare"}},
		{At: 5 * time.Second, RejectPlans: []string{"spread"}, MissHeartbeats: []string{"n1"}},
		{At: 45 * time.Second, Expect: &Expect{
			Since: 5 * time.Second, Total: intp(6),
			Evals: []EvalExpect{
				{Trigger: "node-update", Count: 3},
				{Trigger: "node-update", Status: "complete", Job: "sys", Count: 1},
				{Trigger: "node-update", Status: "complete", Job: "pinned", Count: 1},
				{Trigger: "node-update", Status: "failed", Job: "spread", Count: 1},
				{Trigger: "queued-allocs", Status: "blocked", Job: "pinned", Previous: "node-update", PreviousStatus: "complete", Link: "blocked", Count: 1},
				{Trigger: "max-plan-attempts", Status: "blocked", Job: "spread", Previous: "node-update", PreviousStatus: "failed", Link: "blocked", Count: 1},
				{Trigger: "failed-follow-up", Status: "pending", Job: "spread", Delayed: boolp(true), Previous: "node-update", PreviousStatus: "failed", Link: "next", Count: 1},
			},
		}},
	},
}

func TestSeeds_MissedHeartbeatSixEvals(t *testing.T) {
	res, err := Run(seedHeartbeatScenario, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", res.History)
	for _, f := range res.Failures {
		t.Error(f)
	}
}
