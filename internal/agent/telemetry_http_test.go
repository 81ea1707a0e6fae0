package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// TestMetricsHTTP_PrometheusNeedsPrometheusMetrics: prometheus_metrics =
// false turns the Prometheus form off (a 400 naming the key); the JSON
// form stays, its samples with min, max, mean and stddev over the window.
func TestMetricsHTTP_PrometheusNeedsPrometheusMetrics(t *testing.T) {
	a, c := testAgent(t, func(cfg *config.Config) { cfg.Telemetry.PrometheusMetrics = false })
	code, body := doRaw(t, a, "GET", "/v1/metrics?format=prometheus", "")
	if code != 400 || !strings.Contains(body, "telemetry.prometheus_metrics") {
		t.Fatalf("prometheus off: %d %q", code, body)
	}
	var req *api.SampledValue
	testutil.WaitFor(t, 10*time.Second, "an HTTP request timing in the JSON window", func() (bool, string) {
		sum, _, err := c.Operator().MetricsSummary(nil)
		if err != nil {
			return false, err.Error()
		}
		for i := range sum.Samples {
			if sum.Samples[i].Name == "nomad.http.request" && sum.Samples[i].Count > 0 {
				req = &sum.Samples[i]
				return true, ""
			}
		}
		return false, "none yet"
	})
	if req.Max < req.Min || req.Mean < req.Min || req.Mean > req.Max || req.Sum <= 0 || req.DisplayLabels["method"] == "" {
		t.Fatalf("sample %+v", req)
	}
}

// TestMetricsHTTP_PublishFlagsGateClientMetrics: publish_node_metrics and
// publish_allocation_metrics = false leave the client's host and alloc
// gauges out; on (Drover's default) they are there, with the per-alloc
// CPU percent.
func TestMetricsHTTP_PublishFlagsGateClientMetrics(t *testing.T) {
	for _, on := range []bool{true, false} {
		a, c := testAgent(t, func(cfg *config.Config) {
			cfg.Client.Enabled = true
			cfg.DataDir = testutil.DataDir(t)
			cfg.Server.EnabledSchedulers = nil
			cfg.Telemetry.PublishAllocationMetrics, cfg.Telemetry.PublishNodeMetrics = on, on
		})
		runJob(t, c, shellJob("busy", "while true; do :; done"))
		scrape := func() string { _, text := doRaw(t, a, "GET", "/v1/metrics?format=prometheus", ""); return text }
		if on {
			testutil.WaitFor(t, 20*time.Second, "node and alloc gauges with the CPU percent", func() (bool, string) {
				text := scrape()
				for _, want := range []string{"nomad_client_host_memory_total{", "nomad_client_allocs_memory_rss{", "nomad_client_allocs_cpu_total_percent{"} {
					if !strings.Contains(text, want) {
						return false, "lacks " + want
					}
				}
				return true, ""
			})
			continue
		}
		// Off: the job runs and the server's gauges are there, the
		// client's host and alloc gauges are not.
		testutil.WaitFor(t, 10*time.Second, "the job's summary", func() (bool, string) {
			return strings.Contains(scrape(), `nomad_nomad_job_summary_running{job="busy"`), "not yet"
		})
		text := scrape()
		for _, absent := range []string{"nomad_client_host_", "nomad_client_allocs_", "nomad_client_allocated_"} {
			if strings.Contains(text, absent) {
				t.Errorf("publish off: %s is published", absent)
			}
		}
	}
}

// TestMetricsHTTP_DispatchedJobSummariesCanBeLeftOut: with
// disable_dispatched_job_summary_metrics a dispatched job has no
// job_summary gauges; its parameterized parent keeps them.
func TestMetricsHTTP_DispatchedJobSummariesCanBeLeftOut(t *testing.T) {
	for _, disable := range []bool{false, true} {
		a, c := testAgent(t, func(cfg *config.Config) { cfg.Telemetry.DisableDispatchedJobSummaryMetrics = disable })
		job := mockServiceJob("report", 1)
		job.Type = pointer("batch")
		job.ParameterizedJob = &api.ParameterizedJobConfig{}
		if _, _, err := c.Jobs().Register(job, nil); err != nil {
			t.Fatal(err)
		}
		resp, _, err := c.Jobs().Dispatch("report", nil, nil, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		_, text := doRaw(t, a, "GET", "/v1/metrics?format=prometheus", "")
		parent := strings.Contains(text, `nomad_nomad_job_summary_queued{job="report",`)
		child := strings.Contains(text, `job="`+resp.DispatchedJobID+`"`)
		if !parent || child == disable {
			t.Errorf("disable=%v: parent summary %v, dispatched summary %v", disable, parent, child)
		}
	}
}

// TestMetricsHTTP_OperatorAlertMetricsUnderNomadNames: the RPC counts,
// blocked-eval resources, autopilot health and per-scheduler broker
// gauges are published under Nomad's names.
func TestMetricsHTTP_OperatorAlertMetricsUnderNomadNames(t *testing.T) {
	a, c := clientTestAgent(t) // its client talks to the server over RPC
	huge := shellJob("huge", "sleep 1000")
	huge.TaskGroups[0].Tasks[0].Resources.CPU = pointer(1_000_000)
	huge.TaskGroups[0].Tasks[0].Resources.MemoryMB = pointer(123_456)
	if _, _, err := c.Jobs().Register(huge, nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 20*time.Second, "the metrics operators alert on", func() (bool, string) {
		_, text := doRaw(t, a, "GET", "/v1/metrics?format=prometheus", "")
		for _, want := range []string{
			`nomad_rpc_request{method="Node.Register"}`, "nomad_nomad_blocked_evals_cpu 1e+06", "nomad_nomad_blocked_evals_memory 123456",
			"nomad_nomad_broker_service_ready ", "nomad_nomad_broker_service_unacked ", `nomad_nomad_broker_ready{scheduler="service"}`,
		} {
			if !strings.Contains(text, want) {
				return false, "lacks " + want
			}
		}
		return true, ""
	})
}
