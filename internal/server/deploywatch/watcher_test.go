package deploywatch

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

var t0 = time.Unix(1_700_000_000, 0)

func deployment(groups ...*structs.DeploymentState) *structs.Deployment {
	d := &structs.Deployment{ID: "d1", JobID: "web", Status: structs.DeploymentStatusRunning, TaskGroups: map[string]*structs.DeploymentState{}}
	for i, g := range groups {
		d.TaskGroups[string(rune('a'+i))] = g
	}
	return d
}

func TestWatcher_Step(t *testing.T) {
	cases := []struct {
		name       string
		group      structs.DeploymentState
		prior      int // healthy count at the previous step; -1: never seen
		now        time.Time
		wantEval   bool
		wantStatus string
	}{
		{"nothing healthy yet", structs.DeploymentState{DesiredTotal: 3, PlacedAllocs: 1}, -1, t0, false, ""},
		{"first alloc healthy asks for the next step", structs.DeploymentState{DesiredTotal: 3, HealthyAllocs: 1}, 0, t0, true, ""},
		{"no new health, no eval", structs.DeploymentState{DesiredTotal: 3, HealthyAllocs: 1}, 1, t0, false, ""},
		{"healthy canary asks for an eval", structs.DeploymentState{DesiredTotal: 3, DesiredCanaries: 1, HealthyAllocs: 1}, 0, t0, true, ""},
		{"all healthy but canaries unpromoted is not complete", structs.DeploymentState{DesiredTotal: 1, DesiredCanaries: 1, HealthyAllocs: 1}, 1, t0, false, ""},
		{"last alloc healthy completes with an eval", structs.DeploymentState{DesiredTotal: 3, HealthyAllocs: 3}, 2, t0, true, structs.DeploymentStatusSuccessful},
		{"complete without new health: no eval", structs.DeploymentState{DesiredTotal: 3, HealthyAllocs: 3}, 3, t0, false, structs.DeploymentStatusSuccessful},
		{"unhealthy fails with an eval", structs.DeploymentState{DesiredTotal: 3, HealthyAllocs: 1, UnhealthyAllocs: 1}, 1, t0, true, structs.DeploymentStatusFailed},
		{"progress deadline passed fails", structs.DeploymentState{DesiredTotal: 3, HealthyAllocs: 1, ProgressDeadline: time.Minute, RequireProgressBy: t0}, 1, t0.Add(time.Second), true, structs.DeploymentStatusFailed},
		{"deadline not yet passed", structs.DeploymentState{DesiredTotal: 3, HealthyAllocs: 1, ProgressDeadline: time.Minute, RequireProgressBy: t0}, 1, t0, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := New()
			g := tc.group
			d := deployment(&g)
			if tc.prior >= 0 {
				w.lastHealthy[d.ID] = tc.prior
			}
			actions := w.Step([]*structs.Deployment{d}, tc.now)
			var eval bool
			var status string
			for _, a := range actions {
				eval = eval || a.CreateEval
				if a.Update != nil {
					status = a.Update.Status
				}
			}
			if eval != tc.wantEval || status != tc.wantStatus {
				t.Fatalf("eval %v status %q, want %v %q", eval, status, tc.wantEval, tc.wantStatus)
			}
		})
	}
}

func TestWatcher_AutoPromotesHealthyCanariesWithAnEval(t *testing.T) {
	w := New()
	d := deployment(&structs.DeploymentState{DesiredTotal: 3, DesiredCanaries: 1, AutoPromote: true, HealthyAllocs: 1})
	actions := w.Step([]*structs.Deployment{d}, t0)
	if len(actions) != 1 || len(actions[0].Promote) != 1 || !actions[0].CreateEval {
		t.Fatalf("actions %+v", actions)
	}
	manual := deployment(&structs.DeploymentState{DesiredTotal: 3, DesiredCanaries: 1, HealthyAllocs: 1})
	if got := New().Step([]*structs.Deployment{manual}, t0); len(got) != 1 || len(got[0].Promote) != 0 {
		t.Fatalf("without auto_promote: %+v", got)
	}
}

func TestWatcher_IgnoresNonRunningAndForgetsFinished(t *testing.T) {
	w := New()
	d := deployment(&structs.DeploymentState{DesiredTotal: 2, HealthyAllocs: 1})
	if got := w.Step([]*structs.Deployment{d}, t0); len(got) != 1 {
		t.Fatalf("running deployment: %d actions", len(got))
	}
	paused := *d
	paused.Status = structs.DeploymentStatusPaused
	if got := w.Step([]*structs.Deployment{&paused}, t0); len(got) != 0 || len(w.lastHealthy) != 0 {
		t.Fatalf("paused deployment: %d actions, memory %v", len(got), w.lastHealthy)
	}
}

func TestNextDeadline(t *testing.T) {
	a := deployment(&structs.DeploymentState{DesiredTotal: 2, RequireProgressBy: t0.Add(time.Hour)}, &structs.DeploymentState{DesiredTotal: 2, RequireProgressBy: t0.Add(time.Minute)})
	if got := NextDeadline([]*structs.Deployment{a}); !got.Equal(t0.Add(time.Minute)) {
		t.Fatalf("next deadline %v", got)
	}
}
