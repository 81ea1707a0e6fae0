package server

import (
	"fmt"
	"testing"
	"time"
)

// dutyStep returns the named step of the server's duties.
func dutyStep(t *testing.T, s *Server, name string) func() bool {
	t.Helper()
	for _, d := range s.DutySteps() {
		if d.Name == name {
			return d.Step
		}
	}
	t.Fatalf("no duty step %q", name)
	return nil
}

// The periodic dispatcher's step reports progress only when it launched a
// child: not before the launch is due, and not when prohibit_overlap
// holds a due launch back (the previous child has not finished). The
// simulator stops stepping on the first pass without progress.
func TestPeriodicDispatchStep_ReportsOnlyALaunch(t *testing.T) {
	p := newSteppedPipeline(t)
	p.register(periodicJob("cron", true))
	step := dutyStep(t, p.srv, "periodic-dispatch")
	if step() {
		t.Fatal("progress reported before any launch was due")
	}
	// 1_700_000_000 is 22:13:20 UTC; the next */5 launch is 22:15:00.
	p.clk.Advance(2 * time.Minute)
	if !step() || len(p.children("cron")) != 1 {
		t.Fatalf("the due launch: no progress reported, or %d children", len(p.children("cron")))
	}
	// The child's eval is never processed, so the child still runs.
	p.clk.Advance(5 * time.Minute)
	if step() || len(p.children("cron")) != 1 {
		t.Fatalf("a launch held back by prohibit_overlap reported progress (%d children)", len(p.children("cron")))
	}
}

// Of the launches a parent missed (here a per-minute parent for 30 days,
// more than the catch-up walk's bound), only the latest runs, once.
func TestPeriodicDispatch_LongMissOnlyLatestLaunchRuns(t *testing.T) {
	p := newSteppedPipeline(t)
	j := periodicJob("minutely", false)
	j.Periodic.Specs = []string{"* * * * *"}
	p.register(j)
	p.clk.Advance(30 * 24 * time.Hour)
	runSteps(t, p.srv)
	kids := p.children("minutely")
	latest := p.clk.Now().Truncate(time.Minute)
	if len(kids) != 1 || kids[0].ID != fmt.Sprintf("minutely/periodic-%d", latest.Unix()) {
		var ids []string
		for _, k := range kids {
			ids = append(ids, k.ID)
		}
		t.Fatalf("children %v, want only the launch at %s", ids, latest)
	}
}
