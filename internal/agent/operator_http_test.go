package agent

import (
	"strings"
	"testing"
)

func TestSchedulerConfiguration_GetSetCAS(t *testing.T) {
	a, c := testAgent(t, nil)
	got, _, err := c.Operator().SchedulerGetConfiguration(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.SchedulerConfig.SchedulerAlgorithm != "binpack" || !got.SchedulerConfig.PreemptionConfig.SystemSchedulerEnabled {
		t.Fatalf("default config = %+v", got.SchedulerConfig)
	}
	cfg := got.SchedulerConfig
	cfg.SchedulerAlgorithm = "spread"
	if _, _, err := c.Operator().SchedulerSetConfiguration(cfg, nil); err != nil {
		t.Fatal(err)
	}
	now, _, _ := c.Operator().SchedulerGetConfiguration(nil)
	if now.SchedulerConfig.SchedulerAlgorithm != "spread" {
		t.Fatalf("algorithm = %q after set", now.SchedulerConfig.SchedulerAlgorithm)
	}
	stale := *now.SchedulerConfig
	stale.ModifyIndex--
	stale.SchedulerAlgorithm = "binpack"
	resp, _, err := c.Operator().SchedulerCASConfiguration(&stale, nil)
	if err != nil || resp.Updated {
		t.Fatalf("stale CAS: updated=%v err=%v", resp != nil && resp.Updated, err)
	}
	fresh := *now.SchedulerConfig
	fresh.SchedulerAlgorithm = "binpack"
	resp, _, err = c.Operator().SchedulerCASConfiguration(&fresh, nil)
	if err != nil || !resp.Updated {
		t.Fatalf("fresh CAS: updated=%v err=%v", resp != nil && resp.Updated, err)
	}
	before := a.Server().State().LatestIndex()
	code, msg := doRaw(t, a, "PUT", "/v1/operator/scheduler/configuration", `{"SchedulerAlgorithm":"random"}`)
	if code != 400 || !strings.Contains(msg, "SchedulerAlgorithm") {
		t.Fatalf("bad algorithm: %d %s", code, msg)
	}
	if a.Server().State().LatestIndex() != before {
		t.Fatal("rejected config moved the index")
	}
}

func TestRaftConfiguration_ListsTheLeader(t *testing.T) {
	_, c := testAgent(t, nil)
	cfg, err := c.Operator().RaftGetConfiguration(nil)
	if err != nil || len(cfg.Servers) != 1 || !cfg.Servers[0].Leader || !cfg.Servers[0].Voter {
		t.Fatalf("raft configuration %+v, %v", cfg, err)
	}
}
