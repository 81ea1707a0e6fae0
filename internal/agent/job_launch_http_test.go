package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func TestPeriodicForce_LaunchesAChildWithAPeriodicJobEval(t *testing.T) {
	_, c := testAgent(t, nil)
	job := testAPIJob("nightly")
	job.Type = pointer("batch")
	job.Periodic = &api.PeriodicConfig{Enabled: pointer(true), Spec: pointer("0 3 * * *"), SpecType: pointer("cron")}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	evalID, _, err := c.Jobs().PeriodicForce("nightly", nil)
	if err != nil || evalID == "" {
		t.Fatalf("force: %v %q", err, evalID)
	}
	e, _, err := c.Evaluations().Info(evalID, nil)
	if err != nil || e.TriggeredBy != "periodic-job" || !strings.HasPrefix(e.JobID, "nightly/periodic-") {
		t.Fatalf("eval %+v %v", e, err)
	}
	if _, _, err := c.Jobs().PeriodicForce("web-not-periodic", nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("force of a missing job: %v", err)
	}
}

func TestJobDispatch_ChecksMetaAndPayload(t *testing.T) {
	a, c := testAgent(t, nil)
	job := testAPIJob("report")
	job.Type = pointer("batch")
	job.ParameterizedJob = &api.ParameterizedJobConfig{Payload: "required", MetaRequired: []string{"customer"}, MetaOptional: []string{"format"}}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	resp, _, err := c.Jobs().Dispatch("report", map[string]string{"customer": "acme"}, []byte("data"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	child, _, err := c.Jobs().Info(resp.DispatchedJobID, nil)
	if err != nil || *child.ParentID != "report" || !child.Dispatched || child.Meta["customer"] != "acme" || string(child.Payload) != "data" {
		t.Fatalf("child %+v %v", child, err)
	}
	before := a.Server().State().LatestIndex()
	for _, bad := range []struct {
		meta    map[string]string
		payload []byte
		want    string
	}{
		{map[string]string{"customer": "acme"}, nil, "Payload"},
		{map[string]string{}, []byte("x"), "customer"},
		{map[string]string{"customer": "a", "color": "red"}, []byte("x"), "color"},
	} {
		if _, _, err := c.Jobs().Dispatch("report", bad.meta, bad.payload, "", nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("dispatch %v: %v, want error naming %s", bad.meta, err, bad.want)
		}
	}
	if a.Server().State().LatestIndex() != before {
		t.Error("rejected dispatch moved the index")
	}
}
