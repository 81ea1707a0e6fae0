package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
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
		"nomad.nomad.broker.total_waiting", "nomad.nomad.blocked_evals.total_blocked", "nomad.nomad.plan.queue_depth"} {
		if !names[want] {
			t.Errorf("missing gauge %s", want)
		}
	}
	code, text := doRaw(t, a, "GET", "/v1/metrics?format=prometheus", "")
	if code != 200 || !strings.Contains(text, "nomad_nomad_broker_total_ready ") {
		t.Errorf("prometheus format: %d %q", code, text)
	}
}
