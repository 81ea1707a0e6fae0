package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

func periodicJob(id string, overlap bool) *structs.Job {
	j := testJob(id)
	j.Type = structs.JobTypeBatch
	j.Periodic = &structs.PeriodicConfig{Enabled: true, Specs: []string{"*/5 * * * *"}, SpecType: "cron", ProhibitOverlap: overlap}
	return j
}

// children lists a parent's launched children.
func (p *pipeline) children(parent string) []*structs.Job {
	jobs, _ := p.srv.State().Jobs(nil, "default")
	var out []*structs.Job
	for _, j := range jobs {
		if j.ParentID == parent {
			out = append(out, j)
		}
	}
	return out
}

// TestEvalTrigger_PeriodicJob_LaunchesChildWithOneEval: when the timer
// fires, the dispatcher registers one child with one periodic-job eval in
// one entry; the parent itself never gets an eval.
func TestEvalTrigger_PeriodicJob_LaunchesChildWithOneEval(t *testing.T) {
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		return complete(e, pl)
	})
	if id := p.register(periodicJob("nightly", false)); id != "" {
		t.Fatalf("periodic parent got eval %s", id)
	}
	// 1_700_000_000 is 22:13:20 UTC; the next */5 launch is 22:15:00.
	p.clk.Advance(2 * time.Minute)
	var kids []*structs.Job
	waitFor(t, func() bool { kids = p.children("nightly"); return len(kids) == 1 })
	if kids[0].ID != "nightly/periodic-1700000100" || kids[0].Periodic != nil {
		t.Fatalf("child %+v", kids[0])
	}
	ev := p.evalByTrigger(kids[0].ID, structs.EvalTriggerPeriodicJob)
	if ev.PreviousEval != "" || ev.Type != structs.JobTypeBatch {
		t.Fatalf("periodic-job eval %+v", ev)
	}
	p.waitStatus(ev.ID, structs.EvalStatusComplete)
	if evals := p.evalsOf("nightly"); len(evals) != 0 {
		t.Fatalf("parent has %d evals", len(evals))
	}
	p.clk.Advance(5 * time.Minute)
	waitFor(t, func() bool { return len(p.children("nightly")) == 2 })
}

// TestPeriodicForce_LaunchesEvenWhileAProhibitOverlapChildRuns: as
// Nomad documents for `job periodic force`, a forced launch runs "even if
// it violates the job's prohibit_overlap setting"; only the dispatcher's
// scheduled launches wait for the running child.
func TestPeriodicForce_LaunchesEvenWhileAProhibitOverlapChildRuns(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	p := newPipeline(t, 1, func(e *structs.Evaluation, st scheduler.State, pl scheduler.Planner) error {
		<-hold // children stay pending: "still running" for prohibit_overlap
		return complete(e, pl)
	})
	p.register(periodicJob("cron", true))
	reply, err := JobPeriodicForce.Call(context.Background(), p.srv, &structs.JobPeriodicForceArgs{JobID: "cron"})
	if err != nil || reply.EvalID == "" {
		t.Fatalf("force: %v %+v", err, reply)
	}
	p.clk.Advance(time.Second)
	second, err := JobPeriodicForce.Call(context.Background(), p.srv, &structs.JobPeriodicForceArgs{JobID: "cron"})
	if err != nil || second.EvalID == "" || second.EvalID == reply.EvalID {
		t.Fatalf("second force with a child pending: %v %+v", err, second)
	}
	if kids := p.children("cron"); len(kids) != 2 {
		t.Fatalf("%d children after two forces, want 2", len(kids))
	}
	if ev := p.eval(second.EvalID); ev.TriggeredBy != structs.EvalTriggerPeriodicJob {
		t.Fatalf("second force's eval %+v", ev)
	}
	if _, err := JobPeriodicForce.Call(context.Background(), p.srv, &structs.JobPeriodicForceArgs{JobID: "nope"}); ErrorCode(err) != 404 {
		t.Fatalf("force of an unknown job: %v", err)
	}
}

func TestJobRegister_RejectsBadCronSpec(t *testing.T) {
	p := newPipeline(t, 1, nil)
	j := periodicJob("bad", false)
	j.Periodic.Specs = []string{"every full moon"}
	if _, err := JobRegister.Call(context.Background(), p.srv, &structs.JobRegisterArgs{Job: j}); ErrorCode(err) != 400 || !strings.Contains(err.Error(), "Periodic.Specs[0]") {
		t.Fatalf("bad cron: %v", err)
	}
}
