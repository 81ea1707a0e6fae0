package agent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

func TestMetrics_ReportsPipelineGauges(t *testing.T) {
	a, c := testAgent(t, nil)
	raw, err := c.Operator().Metrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	var summary api.MetricsSummary
	if err := json.Unmarshal(raw, &summary); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, g := range summary.Gauges {
		names[g.Name] = true
	}
	for _, want := range []string{"nomad.nomad.broker.total_ready", "nomad.nomad.broker.total_unacked",
		"nomad.nomad.broker.total_waiting", "nomad.nomad.blocked_evals.total_blocked", "nomad.nomad.plan.queue_depth",
		"nomad.runtime.num_goroutines", "nomad.runtime.alloc_bytes", "nomad.nomad.heartbeat.active"} {
		if !names[want] {
			t.Errorf("missing gauge %s", want)
		}
	}
	code, text := doRaw(t, a, "GET", "/v1/metrics?format=prometheus", "")
	if code != 200 || !strings.Contains(text, "nomad_nomad_broker_total_ready ") {
		t.Errorf("prometheus format: %d %q", code, text)
	}
	if code, _ := doRaw(t, a, "GET", "/v1/metrics?format=xml", ""); code != 400 {
		t.Errorf("unknown format: %d, want 400", code)
	}
}

// TestMetrics_PipelineTimingsAfterAJobRuns runs a job on a mock-driver
// client and checks the metrics a scrape then shows, by Nomad's names.
func TestMetrics_PipelineTimingsAfterAJobRuns(t *testing.T) {
	a, c := clientTestAgent(t)
	job := api.NewServiceJob("web", "web", "global", 50)
	job.Datacenters = []string{"*"}
	task := api.NewTask("t", "mock")
	task.Config = map[string]any{"run_for": "1h"}
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	runJob(t, c, job)

	wants := []string{
		`nomad_nomad_job_summary_running{job="web",namespace="default",task_group="g"} 1`,
		`nomad_nomad_job_status_running{namespace="default"} 1`,
		"nomad_nomad_worker_dequeue_eval_count",
		"nomad_nomad_broker_wait_time_count",
		`nomad_client_host_cpu_user{cpu="cpu0"`,
		"nomad_client_host_disk_size{",
		`drover_evals_created_total{trigger="job-register"} 1`,
		`drover_eval_status_seconds_count{status="pending"}`,
		`drover_eval_status_seconds_count{status="scheduling"}`,
		`drover_eval_status_seconds_count{status="applying"}`,
		`nomad_http_request_count{method="PUT",route="/v1/jobs"} 1`,
		"nomad_raft_apply",
		"nomad_raft_fsm_apply",
		"nomad_raft_commitTime",
		"nomad_client_allocated_memory{",
		"nomad_client_host_memory_total{",
		`nomad_client_allocations_running{`,
		`nomad_nomad_broker_ready{scheduler="service"}`,
	}
	// Timings observed at least once (a deployment may add evals and plans).
	positive := regexp.MustCompile(`(?m)^nomad_nomad_(plan_submit|plan_evaluate|plan_apply|worker_invoke_scheduler_service|broker_service_wait_time)_count [1-9]`)
	// The worker observes its timings after the plan committed, so the
	// alloc can run first: scrape until every series is there.
	var text string
	testutil.WaitFor(t, 10*time.Second, "every metric series", func() (bool, string) {
		_, text = doRaw(t, a, "GET", "/v1/metrics?format=prometheus", "")
		for _, want := range wants {
			if !strings.Contains(text, want) {
				return false, "lacks " + want
			}
		}
		if n := len(positive.FindAllString(text, -1)); n != 5 {
			return false, fmt.Sprintf("%d of the 5 plan, scheduler and broker timings observed", n)
		}
		return true, ""
	})
	if t.Failed() {
		t.Log(text)
	}
}
