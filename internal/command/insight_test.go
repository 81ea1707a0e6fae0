package command

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// The insight commands against a real agent with one client node: a job
// too big for it is explained with its numbers (job why, eval status), the
// headroom of a running group and of a shape are counted, and a what-if
// of losing or draining the node names what would not fit.
func TestInsightCommands(t *testing.T) {
	addr, c := clientAgent(t)
	small, task := sleepingJob("small")
	small.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := c.Jobs().Register(small, nil); err != nil {
		t.Fatal(err)
	}
	huge, task := sleepingJob("huge")
	task.Resources.MemoryMB = new(10_000_000)
	huge.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	reg, _, err := c.Jobs().Register(huge, nil)
	if err != nil {
		t.Fatal(err)
	}
	var nodeID string
	testutil.WaitFor(t, 20*time.Second, "small running and huge's eval complete", func() (bool, string) {
		stubs, _, _ := c.Jobs().Allocations("small", false, nil)
		ev, _, _ := c.Evaluations().Info(reg.EvalID, nil)
		if len(stubs) == 0 || ev == nil {
			return false, "not yet"
		}
		nodeID = stubs[0].NodeID
		return stubs[0].ClientStatus == api.AllocClientStatusRunning && ev.Status == api.EvalStatusComplete, stubs[0].ClientStatus
	})
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"job", "why", "huge"}, []string{`Group "g" of job "huge": 1 unplaced; 0 of 1 nodes take one more`,
			"Why Not Placed", "memory: asked 10,000,000 MB, free ", "needs 10,000,000 MB memory; the largest free is "}},
		{[]string{"job", "why", "-nodes", "huge"}, []string{"Nodes", "memory: asked 10,000,000 MB"}},
		{[]string{"eval", "status", reg.EvalID}, []string{"Failed Placements", "Why Not Placed", "needs 10,000,000 MB memory"}},
		{[]string{"job", "headroom", "small"}, []string{`Group "g" of job "small" (count 1, asks 50 MHz cpu, 32 MB memory, 300 MB disk): `, "more fit", "Worst single-node loss: "}},
		{[]string{"operator", "headroom", "-cpu", "50", "-memory", "32"}, []string{"Allocs of 50 MHz cpu, 32 MB memory: ", " fit"}},
		{[]string{"operator", "what-if", "down", nodeID}, []string{"What-if down of ", "Unplaced", "small", "node not ready excludes all 1 nodes"}},
		{[]string{"node", "drain", "-enable", "-plan", nodeID}, []string{"What-if drain of ", "Unplaced", "small"}},
	} {
		r := run(t, append([]string{tc.args[0], tc.args[1], "-address", addr}, tc.args[2:]...)...)
		if r.code != 0 {
			t.Fatalf("%v: %+v", tc.args, r)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stdout, w) {
				t.Fatalf("%v: no %q in\n%s", tc.args, w, r.stdout)
			}
		}
	}
	// The node is untouched by the what-ifs.
	n, _, err := c.Nodes().Info(nodeID, nil)
	if err != nil || n.DrainStrategy != nil || n.Status != "ready" {
		t.Fatalf("node after the what-ifs: %v %+v", err, n)
	}
	// Refused questions name the field.
	if r := run(t, "job", "why", "-address", addr, "-group", "nope", "huge"); r.code != 1 || !strings.Contains(r.stderr, `no task group "nope"`) {
		t.Fatalf("unknown group: %+v", r)
	}
	if r := run(t, "operator", "what-if", "-address", addr, "down", "nonode"); r.code != 1 || !strings.Contains(r.stderr, `no node "nonode"`) {
		t.Fatalf("unknown node: %+v", r)
	}
	// Through the official client's raw calls: a parameter the endpoint
	// does not act on is a 400 naming it, a missing job a 404.
	var out map[string]any
	_, err = c.Raw().Query("/v1/job/huge/explain", &out, &api.QueryOptions{Params: map[string]string{"bogus": "1"}})
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "bogus: unknown query parameter") {
		t.Fatalf("unknown parameter: %v", err)
	}
	_, err = c.Raw().Query("/v1/job/huge/explain", &out, &api.QueryOptions{WaitIndex: 5})
	if err == nil || !strings.Contains(err.Error(), "index: unknown query parameter") {
		t.Fatalf("a blocking query of a computed answer: %v", err)
	}
	_, err = c.Raw().Query("/v1/job/nope/headroom", &out, nil)
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("unknown job: %v", err)
	}
	_, err = c.Raw().Write("/v1/operator/whatif", map[string]any{"Kind": "drain", "Nodes": []string{nodeID}, "Bogus": true}, &out, nil)
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "Bogus") {
		t.Fatalf("unknown body field: %v", err)
	}
}

// The N+1 table shows the worst losses first, at most maxN1Rows of them,
// and says which answers are upper bounds (other jobs' allocs not played).
func TestPrintHeadroom_N1Table(t *testing.T) {
	h := &headroomView{JobID: "web", Group: "g", Current: 2, More: 30, N1Min: 4, N1Worst: "n00"}
	for i := range 12 {
		l := nodeLossView{Name: fmt.Sprintf("n%02d", i), More: 4 + i}
		if i == 1 {
			l.Others, l.UpperBound = 3, true
		}
		h.N1 = append(h.N1, l)
	}
	var b strings.Builder
	printHeadroom(&b, h)
	out := b.String()
	for _, want := range []string{"Node Lost  More  Note", "n01        5     at most: 3 allocs of other jobs would move too", "n09        13", "(the 2 least hurting losses are not shown; -json lists every node)", "Worst single-node loss: n00 (4 more fit)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "n10") {
		t.Fatalf("more than %d rows:\n%s", maxN1Rows, out)
	}
}
