package command

import (
	"bytes"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestChainTree checks the tree shape on a chain the agent cannot produce
// yet: a failed eval with a follow-up, a rolling NextEval, a blocked eval
// with a child, and a link cycle that must not loop.
func TestChainTree(t *testing.T) {
	ev := func(id, trigger, status string, idx uint64, steps ...string) *evalView {
		v := &evalView{Evaluation: api.Evaluation{ID: id + "-0000-0000-0000-000000000000", TriggeredBy: trigger, Status: status, CreateIndex: idx}}
		for i, s := range steps {
			v.Timeline = append(v.Timeline, &timelineStep{Status: s, Time: int64(i) * int64(time.Millisecond)})
		}
		return v
	}
	full := func(id string) string { return id + "-0000-0000-0000-000000000000" }
	a := ev("aaaaaaaa", "job-register", "failed", 1, "pending", "scheduling", "failed")
	b := ev("bbbbbbbb", "failed-follow-up", "complete", 2, "pending", "delayed", "scheduling", "complete")
	c := ev("cccccccc", "rolling-update", "complete", 3, "pending", "complete")
	d := ev("dddddddd", "queued-allocs", "blocked", 4, "blocked")
	x := ev("eeeeeeee", "alloc-failure", "pending", 5)
	a.NextEval = full("bbbbbbbb")
	b.PreviousEval, b.NextEval = full("aaaaaaaa"), full("cccccccc")
	c.BlockedEval = full("dddddddd")
	d.PreviousEval = full("cccccccc")
	x.PreviousEval, d.NextEval = full("dddddddd"), full("cccccccc") // the cycle d -> c is ignored
	var out bytes.Buffer
	e := newEnv(&out, &out, func(string) string { return "" })
	e.dur = func(d time.Duration) string { return d.String() }
	roots := buildChain([]*evalView{x, d, c, b, a})
	rows := [][]string{}
	for _, r := range roots {
		rows = e.chainRows(rows, r, full("cccccccc"), "", "")
	}
	writeColumns(&out, rows)
	// Times of 0 mean "unknown", so the blocked and pending evals show no
	// waiting time here.
	want := `○ aaaaaaaa                         job-register      failed    pending → scheduling 1ms → failed 1ms
└─ next: ○ bbbbbbbb                failed-follow-up  complete  pending → delayed 1ms → scheduling 1ms → complete 1ms
   └─ next: ● cccccccc             rolling-update    complete  pending → complete 1ms
      └─ blocked: ○ dddddddd       queued-allocs     blocked   blocked
         └─ follow-up: ○ eeeeeeee  alloc-failure     pending   pending
`
	if got := out.String(); got != want {
		t.Errorf("chain:\n%s\nwant:\n%s", got, want)
	}
}
