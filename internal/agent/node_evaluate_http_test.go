package agent

import (
	"errors"
	"net/http"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// TestNodeEvaluate_OneNodeUpdateEvalPerJobOnTheNode drives `node eval`:
// PUT /v1/node/:id/evaluate writes a node-update eval for the job with
// allocs on the node and for the system job that may run there, and
// answers with their IDs and indexes. An unknown node is a 404.
func TestNodeEvaluate_OneNodeUpdateEvalPerJobOnTheNode(t *testing.T) {
	_, c := runningJob(t)
	sys := testAPIJob("sys")
	sys.Type = pointer("system")
	sys.TaskGroups[0].Count = pointer(1)
	sys.TaskGroups[0].Tasks[0].Resources = &api.Resources{CPU: pointer(100), MemoryMB: pointer(64)}
	if _, _, err := c.Jobs().Register(sys, nil); err != nil {
		t.Fatal(err)
	}
	nodeID := simNode(1, 0, 0).ID
	node, _, err := c.Nodes().Info(nodeID, nil)
	if err != nil {
		t.Fatal(err)
	}
	evalID, wm, err := c.Nodes().ForceEvaluate(nodeID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if evalID == "" || wm.LastIndex == 0 {
		t.Fatalf("ForceEvaluate: eval %q index %d", evalID, wm.LastIndex)
	}

	var resp struct {
		EvalIDs         []string
		EvalCreateIndex uint64
		NodeModifyIndex uint64
	}
	if _, err := c.Raw().Write("/v1/node/"+nodeID+"/evaluate", nil, &resp, nil); err != nil {
		t.Fatal(err)
	}
	if len(resp.EvalIDs) != 2 || resp.EvalCreateIndex <= wm.LastIndex || resp.NodeModifyIndex != node.ModifyIndex {
		t.Fatalf("evaluate response %+v (node modify index %d)", resp, node.ModifyIndex)
	}
	jobs := map[string]bool{}
	for _, id := range resp.EvalIDs {
		ev, _, err := c.Evaluations().Info(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ev.TriggeredBy != "node-update" || ev.NodeID != nodeID || ev.CreateIndex != resp.EvalCreateIndex {
			t.Fatalf("eval %+v", ev)
		}
		jobs[ev.JobID] = true
	}
	if !jobs["web"] || !jobs["sys"] {
		t.Fatalf("evals for jobs %v, want web and sys", jobs)
	}

	_, _, err = c.Nodes().ForceEvaluate("00000000-0000-4000-8000-000000000000", nil)
	var unexpected api.UnexpectedResponseError
	if !errors.As(err, &unexpected) || unexpected.StatusCode() != http.StatusNotFound {
		t.Fatalf("unknown node: %v", err)
	}
}
