package agent

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// testAPIJob is a service job with enough fields set to check a round trip.
func testAPIJob(id string) *api.Job {
	job := api.NewServiceJob(id, id, "global", 70)
	job.Datacenters = []string{"dc1", "dc2"}
	job.Meta = map[string]string{"owner": "team-a"}
	job.Constrain(api.NewConstraint("${attr.kernel.name}", "=", "linux"))
	tg := api.NewTaskGroup("web", 3)
	tg.Meta = map[string]string{"tier": "front"}
	task := api.NewTask("server", "docker")
	task.Config = map[string]any{"image": "nginx:1.25", "ports": []any{"http"}}
	task.Env = map[string]string{"MODE": "prod"}
	task.Require(&api.Resources{CPU: pointer(250), MemoryMB: pointer(128)})
	tg.AddTask(task)
	job.AddTaskGroup(tg)
	return job
}

func pointer[T any](v T) *T { return &v }

func TestJobRegister_ReadBackFieldForField(t *testing.T) {
	_, c := testAgent(t, nil)
	resp, _, err := c.Jobs().Register(testAPIJob("web"), nil)
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	if resp.EvalID == "" || resp.EvalCreateIndex == 0 || resp.JobModifyIndex == 0 {
		t.Fatalf("register response incomplete: %+v", resp)
	}
	got, meta, err := c.Jobs().Info("web", nil)
	if err != nil {
		t.Fatalf("info: %v", err)
	}
	if meta.LastIndex == 0 {
		t.Errorf("X-Nomad-Index missing")
	}
	checks := map[string][2]any{
		"ID":          {*got.ID, "web"},
		"Name":        {*got.Name, "web"},
		"Type":        {*got.Type, "service"},
		"Priority":    {*got.Priority, 70},
		"Region":      {*got.Region, "global"},
		"Namespace":   {*got.Namespace, "default"},
		"Datacenters": {got.Datacenters, []string{"dc1", "dc2"}},
		"Meta":        {got.Meta, map[string]string{"owner": "team-a"}},
		"Status":      {*got.Status, "pending"},
		"Version":     {*got.Version, uint64(0)},
		"Group.Name":  {*got.TaskGroups[0].Name, "web"},
		"Group.Count": {*got.TaskGroups[0].Count, 3},
		"Task.Driver": {got.TaskGroups[0].Tasks[0].Driver, "docker"},
		"Task.Config": {got.TaskGroups[0].Tasks[0].Config, map[string]any{"image": "nginx:1.25", "ports": []any{"http"}}},
		"Task.Env":    {got.TaskGroups[0].Tasks[0].Env, map[string]string{"MODE": "prod"}},
		"Task.CPU":    {*got.TaskGroups[0].Tasks[0].Resources.CPU, 250},
		"Task.Memory": {*got.TaskGroups[0].Tasks[0].Resources.MemoryMB, 128},
		"Constraint":  {*got.Constraints[0], api.Constraint{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}},
		"ModifyIndex": {*got.JobModifyIndex, resp.JobModifyIndex},
	}
	for name, c := range checks {
		if !reflect.DeepEqual(c[0], c[1]) {
			t.Errorf("%s = %#v, want %#v", name, c[0], c[1])
		}
	}
}

func TestJobRegister_WritesPendingJobRegisterEval(t *testing.T) {
	_, c := testAgent(t, nil)
	resp, _, err := c.Jobs().Register(testAPIJob("api"), nil)
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	evals, _, err := c.Jobs().Evaluations("api", nil)
	if err != nil {
		t.Fatalf("evaluations: %v", err)
	}
	if len(evals) != 1 {
		t.Fatalf("got %d evals, want 1", len(evals))
	}
	e := evals[0]
	if e.ID != resp.EvalID || e.TriggeredBy != "job-register" || e.Status != "pending" ||
		e.JobID != "api" || e.Type != "service" || e.Priority != 70 || e.CreateIndex != resp.EvalCreateIndex {
		t.Errorf("eval = %+v", e)
	}
	if e.JobModifyIndex != resp.JobModifyIndex {
		t.Errorf("eval JobModifyIndex = %d, want %d", e.JobModifyIndex, resp.JobModifyIndex)
	}
	info, _, err := c.Evaluations().Info(resp.EvalID, nil)
	if err != nil || info.ID != resp.EvalID {
		t.Fatalf("eval info: %v %+v", err, info)
	}
}

func TestJobRegister_PeriodicParentGetsNoEval(t *testing.T) {
	_, c := testAgent(t, nil)
	job := api.NewBatchJob("nightly", "nightly", "global", 50)
	job.Periodic = &api.PeriodicConfig{Enabled: pointer(true), Spec: pointer("0 3 * * *"), SpecType: pointer("cron")}
	task := api.NewTask("t", "exec")
	task.Config = map[string]any{"command": "/bin/true"}
	job.AddTaskGroup(api.NewTaskGroup("run", 1).AddTask(task))
	resp, _, err := c.Jobs().Register(job, nil)
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	if resp.EvalID != "" {
		t.Errorf("periodic parent got eval %q", resp.EvalID)
	}
	evals, _, _ := c.Jobs().Evaluations("nightly", nil)
	if len(evals) != 0 {
		t.Errorf("periodic parent has %d evals", len(evals))
	}
}

func TestJobList_PrefixSearch(t *testing.T) {
	_, c := testAgent(t, nil)
	for _, id := range []string{"web-a", "web-b", "db"} {
		if _, _, err := c.Jobs().Register(testAPIJob(id), nil); err != nil {
			t.Fatalf("register %s: %v", id, err)
		}
	}
	all, _, err := c.Jobs().List(nil)
	if err != nil || len(all) != 3 {
		t.Fatalf("list: %v, %d jobs", err, len(all))
	}
	web, _, err := c.Jobs().PrefixList("web")
	if err != nil {
		t.Fatalf("prefix list: %v", err)
	}
	if ids := stubIDs(web); !reflect.DeepEqual(ids, []string{"web-a", "web-b"}) {
		t.Errorf("prefix web = %v", ids)
	}
	evals, _, err := c.Evaluations().List(nil)
	if err != nil || len(evals) != 3 {
		t.Fatalf("eval list: %v, %d evals", err, len(evals))
	}
	prefix := evals[0].ID[:4]
	found, _, err := c.Evaluations().PrefixList(prefix)
	if err != nil || len(found) == 0 {
		t.Fatalf("eval prefix list: %v %d", err, len(found))
	}
	for _, e := range found {
		if !strings.HasPrefix(e.ID, prefix) {
			t.Errorf("eval %s does not have prefix %s", e.ID, prefix)
		}
	}
}

func stubIDs(stubs []*api.JobListStub) []string {
	var ids []string
	for _, s := range stubs {
		ids = append(ids, s.ID)
	}
	return ids
}

func TestJobDeregister_StopThenPurge(t *testing.T) {
	_, c := testAgent(t, nil)
	if _, _, err := c.Jobs().Register(testAPIJob("web"), nil); err != nil {
		t.Fatalf("register: %v", err)
	}
	stopEval, _, err := c.Jobs().Deregister("web", false, nil)
	if err != nil || stopEval == "" {
		t.Fatalf("stop: %v %q", err, stopEval)
	}
	job, _, err := c.Jobs().Info("web", nil)
	if err != nil || !*job.Stop || *job.Status != "dead" && *job.Status != "pending" {
		t.Fatalf("after stop: %v stop=%v status=%v", err, job.Stop, *job.Status)
	}
	eval, _, err := c.Evaluations().Info(stopEval, nil)
	if err != nil || eval.TriggeredBy != "job-deregister" || eval.Status != "pending" {
		t.Fatalf("stop eval: %v %+v", err, eval)
	}
	if _, _, err := c.Jobs().Deregister("web", true, nil); err != nil {
		t.Fatalf("purge: %v", err)
	}
	if _, _, err := c.Jobs().Info("web", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("after purge: want 404, got %v", err)
	}
}

func TestBlockingQuery_WakesOnChange(t *testing.T) {
	_, c := testAgent(t, nil)
	_, meta, err := c.Jobs().List(nil)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	type result struct {
		jobs []*api.JobListStub
		meta *api.QueryMeta
		err  error
	}
	done := make(chan result, 1)
	go func() {
		jobs, m, err := c.Jobs().List(&api.QueryOptions{WaitIndex: meta.LastIndex, WaitTime: 30 * time.Second})
		done <- result{jobs, m, err}
	}()
	// The list's handler is parked in the blocking query (or, broken, the
	// query has returned).
	testutil.WaitFor(t, 10*time.Second, "the job list to block", func() bool {
		return len(done) > 0 || testutil.Parked("server.(*Server).BlockingQuery(", "agent.(*HTTPServer).jobList(")
	})
	select {
	case r := <-done:
		t.Fatalf("blocking query returned before any change: %+v", r)
	default:
	}
	if _, _, err := c.Jobs().Register(testAPIJob("late"), nil); err != nil {
		t.Fatalf("register: %v", err)
	}
	select {
	case r := <-done:
		if r.err != nil || len(r.jobs) != 1 || r.meta.LastIndex <= meta.LastIndex {
			t.Fatalf("woken query: %v jobs=%d index=%d (was %d)", r.err, len(r.jobs), r.meta.LastIndex, meta.LastIndex)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("blocking query did not wake on a job register")
	}
}

func TestBlockingQuery_ReturnsAtDeadline(t *testing.T) {
	_, c := testAgent(t, nil)
	_, meta, err := c.Jobs().List(nil)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	_, m, err := c.Jobs().List(&api.QueryOptions{WaitIndex: meta.LastIndex, WaitTime: 50 * time.Millisecond})
	if err != nil || m.LastIndex != meta.LastIndex {
		t.Fatalf("deadline query: %v index %d want %d", err, m.LastIndex, meta.LastIndex)
	}
}
