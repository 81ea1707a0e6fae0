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
		prior      int // placed allocs at the step that last got an eval
		now        time.Time
		wantEval   bool
		wantStatus string
	}{
		{"nothing healthy yet", structs.DeploymentState{DesiredTotal: 3, PlacedAllocs: 1}, 0, t0, false, ""},
		{"the step's only alloc healthy asks for the next step", structs.DeploymentState{DesiredTotal: 3, PlacedAllocs: 1, HealthyAllocs: 1}, 0, t0, true, ""},
		{"one of the step's two allocs healthy: no eval yet", structs.DeploymentState{DesiredTotal: 4, PlacedAllocs: 2, HealthyAllocs: 1}, 0, t0, false, ""},
		{"both of the step's allocs healthy: one eval", structs.DeploymentState{DesiredTotal: 4, PlacedAllocs: 2, HealthyAllocs: 2}, 0, t0, true, ""},
		{"same step seen again: no second eval", structs.DeploymentState{DesiredTotal: 4, PlacedAllocs: 2, HealthyAllocs: 2}, 2, t0, false, ""},
		{"next step placed, not yet healthy", structs.DeploymentState{DesiredTotal: 4, PlacedAllocs: 4, HealthyAllocs: 3}, 2, t0, false, ""},
		{"healthy canary asks for an eval", structs.DeploymentState{DesiredTotal: 3, DesiredCanaries: 1, PlacedAllocs: 1, HealthyAllocs: 1}, 0, t0, true, ""},
		{"all healthy but canaries unpromoted is not complete", structs.DeploymentState{DesiredTotal: 1, DesiredCanaries: 1, PlacedAllocs: 1, HealthyAllocs: 1}, 1, t0, false, ""},
		{"last step healthy completes with an eval", structs.DeploymentState{DesiredTotal: 3, PlacedAllocs: 3, HealthyAllocs: 3}, 2, t0, true, structs.DeploymentStatusSuccessful},
		{"complete without a new step: no eval", structs.DeploymentState{DesiredTotal: 3, PlacedAllocs: 3, HealthyAllocs: 3}, 3, t0, false, structs.DeploymentStatusSuccessful},
		{"unhealthy fails with an eval", structs.DeploymentState{DesiredTotal: 3, PlacedAllocs: 2, HealthyAllocs: 1, UnhealthyAllocs: 1}, 1, t0, true, structs.DeploymentStatusFailed},
		{"progress deadline passed fails", structs.DeploymentState{DesiredTotal: 3, PlacedAllocs: 2, HealthyAllocs: 1, ProgressDeadline: time.Minute, RequireProgressBy: t0}, 1, t0.Add(time.Second), true, structs.DeploymentStatusFailed},
		{"no progress_deadline: never failed for time", structs.DeploymentState{DesiredTotal: 3, PlacedAllocs: 2, HealthyAllocs: 1, RequireProgressBy: t0}, 1, t0.Add(time.Hour), false, ""},
		{"deadline not yet passed", structs.DeploymentState{DesiredTotal: 3, PlacedAllocs: 2, HealthyAllocs: 1, ProgressDeadline: time.Minute, RequireProgressBy: t0}, 1, t0, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := New()
			g := tc.group
			d := deployment(&g)
			w.lastStep[d.ID] = tc.prior
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
	d := deployment(&structs.DeploymentState{DesiredTotal: 3, DesiredCanaries: 1, AutoPromote: true, PlacedAllocs: 1, HealthyAllocs: 1})
	actions := w.Step([]*structs.Deployment{d}, t0)
	if len(actions) != 1 || len(actions[0].Promote) != 1 || !actions[0].CreateEval {
		t.Fatalf("actions %+v", actions)
	}
	noCanaries := deployment(&structs.DeploymentState{DesiredTotal: 3, AutoPromote: true, PlacedAllocs: 1, HealthyAllocs: 1})
	if got := New().Step([]*structs.Deployment{noCanaries}, t0); len(got) != 1 || len(got[0].Promote) != 0 {
		t.Fatalf("auto_promote without canaries promoted: %+v", got)
	}
	manual := deployment(&structs.DeploymentState{DesiredTotal: 3, DesiredCanaries: 1, PlacedAllocs: 1, HealthyAllocs: 1})
	if got := New().Step([]*structs.Deployment{manual}, t0); len(got) != 1 || len(got[0].Promote) != 0 {
		t.Fatalf("without auto_promote: %+v", got)
	}
}

func TestWatcher_IgnoresNonRunningAndForgetsFinished(t *testing.T) {
	w := New()
	d := deployment(&structs.DeploymentState{DesiredTotal: 2, PlacedAllocs: 1, HealthyAllocs: 1})
	if got := w.Step([]*structs.Deployment{d}, t0); len(got) != 1 {
		t.Fatalf("running deployment: %d actions", len(got))
	}
	paused := *d
	paused.Status = structs.DeploymentStatusPaused
	if got := w.Step([]*structs.Deployment{&paused}, t0); len(got) != 0 || len(w.lastStep) != 0 {
		t.Fatalf("paused deployment: %d actions, memory %v", len(got), w.lastStep)
	}
}

func TestNextDeadline(t *testing.T) {
	a := deployment(&structs.DeploymentState{DesiredTotal: 2, RequireProgressBy: t0.Add(time.Hour)}, &structs.DeploymentState{DesiredTotal: 2, RequireProgressBy: t0.Add(time.Minute)})
	if got := NextDeadline([]*structs.Deployment{a}); !got.Equal(t0.Add(time.Minute)) {
		t.Fatalf("next deadline %v", got)
	}
}

// docs/design.md: "1 Evaluation when the Deployment has reached the next
// step". A count-4 group with max_parallel 2 and no canary takes two
// steps: 2 deployment-watcher evals however the health reports are
// spread (one per step step, each alloc reporting alone, or the watcher
// stepping several times between reports).
func TestWatcher_OneEvalPerStepHoweverHealthIsReported(t *testing.T) {
	for name, healthyAfterEachReport := range map[string][]int{
		"one report per alloc":          {1, 2, 3, 4},
		"both allocs of a step at once": {2, 4},
		"repeated reports":              {1, 1, 2, 2, 2, 3, 3, 4, 4},
	} {
		t.Run(name, func(t *testing.T) {
			w := New()
			g := &structs.DeploymentState{DesiredTotal: 4, PlacedAllocs: 2}
			d := deployment(g)
			evals := 0
			for _, healthy := range healthyAfterEachReport {
				g.HealthyAllocs = healthy
				for _, a := range w.Step([]*structs.Deployment{d}, t0) {
					if a.CreateEval {
						evals++
						g.PlacedAllocs = min(g.PlacedAllocs+2, g.DesiredTotal) // the eval places the next step
					}
				}
			}
			if evals != 2 {
				t.Fatalf("%d deployment-watcher evals, want 2", evals)
			}
		})
	}
}
