package command

import (
	"bytes"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// deploySteps is a rollout as successive reads of the deployment,
// including a repeated read that must not print anything.
func deploySteps() []*api.Deployment {
	step := func(status, desc string, placed, healthy int) *api.Deployment {
		return &api.Deployment{ID: "dd172bf0-0000-4000-8000-000000000001", JobID: "web", JobVersion: 3,
			Status: status, StatusDescription: desc,
			TaskGroups: map[string]*api.DeploymentState{
				"web": {DesiredTotal: 2, PlacedAllocs: placed, HealthyAllocs: healthy},
				"api": {DesiredTotal: 1, PlacedAllocs: 1, HealthyAllocs: 1, DesiredCanaries: 1, Promoted: true,
					PlacedCanaries: []string{"x"}, RequireProgressBy: time.Unix(1, 0)},
			}}
	}
	return []*api.Deployment{
		step("running", "Deployment is running", 1, 0),
		step("running", "Deployment is running", 1, 0),
		step("running", "Deployment is running", 2, 1),
		step("successful", "Deployment completed successfully", 2, 2),
	}
}

func runView(tty bool) result {
	var out bytes.Buffer
	e := newEnv(&out, &out, func(string) string { return "" })
	e.tty = tty
	e.absTimeFmt = func(time.Time) string { return "2026-01-02T03:04:05Z" }
	v := e.newDeployView()
	steps := deploySteps()
	for _, d := range steps[:len(steps)-1] {
		v.update(d)
	}
	v.finish(steps[len(steps)-1])
	return result{stdout: out.String()}
}

// TestDeployViewLines: off a terminal, one line per change, then the
// final block.
func TestDeployViewLines(t *testing.T) { golden(t, "deploy_view_lines", runView(false)) }

// TestDeployViewTTY: on a terminal, the block is redrawn in place (cursor
// up over the previous drawing, clear to the end) only when it changed.
func TestDeployViewTTY(t *testing.T) { golden(t, "deploy_view_tty", runView(true)) }

func TestNeedsPromotion(t *testing.T) {
	d := &api.Deployment{Status: "running", StatusDescription: descNeedsPromotion, TaskGroups: map[string]*api.DeploymentState{
		"a": {DesiredCanaries: 2, HealthyAllocs: 1},
		"b": {DesiredTotal: 3},
	}}
	if needsPromotion(d) {
		t.Fatal("a canary is not healthy yet")
	}
	d.TaskGroups["a"].HealthyAllocs = 2
	if !needsPromotion(d) {
		t.Fatal("all canaries healthy: needs promotion")
	}
	d.TaskGroups["a"].Promoted = true
	if needsPromotion(d) {
		t.Fatal("promoted")
	}
}
