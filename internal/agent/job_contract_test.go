package agent

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// want400 fails unless err is a 400 whose message contains every want.
func want400(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	var resp api.UnexpectedResponseError
	if !errors.As(err, &resp) || resp.StatusCode() != http.StatusBadRequest {
		t.Fatalf("%s = %v, want a 400", what, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: message does not contain %q:\n%v", what, w, err)
		}
	}
}

// TestJobRegister_DriverConfigTypoIs400 is the regression test of issue
// 29: a typo in a driver config was caught by job validate but not by job
// plan or job run (plan said every task placed; the alloc failed at start).
// Plan and register now answer 400 naming the task, the key and the key
// meant, and nothing is written.
func TestJobRegister_DriverConfigTypoIs400(t *testing.T) {
	a, c := testAgent(t, nil)
	job := testAPIJob("typo")
	delete(job.TaskGroups[0].Tasks[0].Config, "image")
	job.TaskGroups[0].Tasks[0].Config["imagee"] = "nginx"
	job.TaskGroups[0].Tasks[0].Config["portz"] = []any{"http"}

	before := a.Server().State().LatestIndex()
	_, _, err := c.Jobs().Plan(job, true, nil)
	want400(t, "plan", err, `TaskGroups[0].Tasks[0].Config.imagee`, `did you mean "image"`,
		`TaskGroups[0].Tasks[0].Config.portz`, `did you mean "ports"`, `TaskGroups[0].Tasks[0].Config.image`)
	_, _, err = c.Jobs().Register(job, nil)
	want400(t, "register", err, `Config.imagee`, `did you mean "image"`)
	if n := strings.Count(err.Error(), "\n* "); n != 3 {
		t.Errorf("register: %d bullets, want one per problem (3):\n%v", n, err)
	}
	if after := a.Server().State().LatestIndex(); after != before {
		t.Errorf("state index moved from %d to %d", before, after)
	}

	v, _, err := c.Jobs().Validate(job, nil)
	if err != nil || !strings.Contains(v.Error, `did you mean "image"`) {
		t.Fatalf("validate: %v %+v, want the typo with its suggestion", err, v)
	}
}

// TestJobRegister_RefusedFieldsAre400NamingEveryField: a job setting
// fields Drover does not act on is refused at register, plan and validate
// with one bullet per field; nothing is written.
func TestJobRegister_RefusedFieldsAre400NamingEveryField(t *testing.T) {
	a, c := testAgent(t, nil)
	job := fieldsJob("refused")
	tg := job.TaskGroups[0]
	// Fields that stay refused: the other rows are being honoured one by
	// one, and their own tests prove them.
	tg.Networks[0].DynamicPorts = append(tg.Networks[0].DynamicPorts, api.Port{Label: "pub", IgnoreCollision: true})
	tg.Services = append(tg.Services, &api.Service{Name: "consul-svc", PortLabel: "http"})
	tg.Tasks[0].Resources = &api.Resources{NUMA: &api.NUMAResource{Affinity: "require"}}
	tg.Tasks[0].Artifacts = []*api.TaskArtifact{{GetterSource: pointer("https://example.com/x.tgz"), GetterHeaders: map[string]string{"X": "y"}}}
	tg.Tasks[0].Vault = &api.Vault{Role: "web"}
	want := []string{
		"TaskGroups[0].Networks[0].DynamicPorts[1].IgnoreCollision", "TaskGroups[0].Services[1].Provider", `provider = "nomad"`,
		"TaskGroups[0].Tasks[0].Resources.NUMA", "TaskGroups[0].Tasks[0].Artifacts[0].GetterHeaders", "TaskGroups[0].Tasks[0].Vault",
	}
	before := a.Server().State().LatestIndex()
	_, _, err := c.Jobs().Register(job, nil)
	want400(t, "register", err, want...)
	if n := strings.Count(err.Error(), "\n* "); n != 5 {
		t.Errorf("register: %d bullets, want 5:\n%v", n, err)
	}
	_, _, err = c.Jobs().Plan(job, false, nil)
	want400(t, "plan", err, want...)
	_, _, err = c.Jobs().Validate(job, nil)
	want400(t, "validate", err, want...)
	if after := a.Server().State().LatestIndex(); after != before {
		t.Errorf("state index moved from %d to %d", before, after)
	}
}

// TestJobRegister_WarnedFieldsAreAcceptedWithAWarning: a field that cannot
// change where or how anything runs (the ui block) is accepted, and the
// register, plan and validate replies say it is ignored.
func TestJobRegister_WarnedFieldsAreAcceptedWithAWarning(t *testing.T) {
	_, c := testAgent(t, nil)
	job := fieldsJob("warned")
	job.UI = &api.JobUIConfig{Description: "the web tier", Links: []*api.JobUILink{{Label: "docs", URL: "https://example.com"}}}
	reg, _, err := c.Jobs().Register(job, nil)
	if err != nil || !strings.Contains(reg.Warnings, "UI: the ui block") {
		t.Fatalf("register: %v, warnings %q", err, reg.Warnings)
	}
	plan, _, err := c.Jobs().Plan(job, false, nil)
	if err != nil || !strings.Contains(plan.Warnings, "UI: the ui block") {
		t.Fatalf("plan: %v, warnings %q", err, plan.Warnings)
	}
	v, _, err := c.Jobs().Validate(job, nil)
	if err != nil || !strings.Contains(v.Warnings, "UI: the ui block") {
		t.Fatalf("validate: %v, warnings %q", err, v.Warnings)
	}
}
