package deploywatch

import (
	"slices"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Status descriptions the watcher writes.
const (
	DescSuccessful       = "Deployment completed successfully"
	DescUnhealthyAllocs  = "Failed due to unhealthy allocations"
	DescProgressDeadline = "Failed due to progress deadline"
)

// Action is what one deployment needs now. Update, when set, changes the
// deployment's status; CreateEval asks for one deployment-watcher eval of
// the deployment's job (written with the update, if any, in one entry).
type Action struct {
	Deployment *structs.Deployment
	Update     *structs.DeploymentStatusUpdate
	// Promote names the groups whose healthy canaries auto_promote
	// promotes (with the eval that rolls out the rest).
	Promote    []string
	CreateEval bool
}

// Watcher remembers, per deployment, how many allocs were placed when it
// last asked for an eval, so each step of the rollout yields exactly one
// eval however the health reports of that step are spread in time.
type Watcher struct {
	lastStep map[string]int
}

// New returns a watcher with no memory: after a leader change the first
// step may ask for one eval per running deployment whose placed allocs
// are all healthy, which is harmless (the scheduler finds nothing to do
// and cancels it).
func New() *Watcher { return &Watcher{lastStep: map[string]int{}} }

// Forget drops what the watcher remembers of a deployment, so its current
// step is asked for again: the caller's write of that step failed.
func (w *Watcher) Forget(deploymentID string) { delete(w.lastStep, deploymentID) }

// Step returns the actions the deployments need at time now.
func (w *Watcher) Step(deployments []*structs.Deployment, now time.Time) []Action {
	var actions []Action
	live := map[string]bool{}
	for _, d := range deployments {
		if d.Status != structs.DeploymentStatusRunning {
			continue
		}
		live[d.ID] = true
		if a, ok := w.decide(d, now); ok {
			actions = append(actions, a)
		}
	}
	for id := range w.lastStep {
		if !live[id] {
			delete(w.lastStep, id) // finished: forget it
		}
	}
	return actions
}

// decide applies the design's rule (docs/design.md): "It will create 1 Evaluation when the
// Deployment has reached the next step". A step is reached when every
// alloc placed so far is healthy and more allocs are placed than at the
// previous step; a health report that leaves some placed alloc of the
// step still unhealthy asks for nothing.
func (w *Watcher) decide(d *structs.Deployment, now time.Time) (Action, bool) {
	switch {
	case unhealthy(d):
		return failed(d, DescUnhealthyAllocs), true
	case pastDeadline(d, now):
		return failed(d, DescProgressDeadline), true
	}
	stepDone := stepReached(d, w.lastStep[d.ID])
	if stepDone {
		w.lastStep[d.ID] = totalPlaced(d)
	}
	if complete(d) {
		// The last step gets its eval too (docs/design.md counts it); the
		// scheduler finds the rollout done.
		return Action{Deployment: d, CreateEval: stepDone, Update: &structs.DeploymentStatusUpdate{
			DeploymentID: d.ID, Status: structs.DeploymentStatusSuccessful, StatusDescription: DescSuccessful,
		}}, true
	}
	if groups := autoPromotable(d); len(groups) > 0 {
		return Action{Deployment: d, Promote: groups, CreateEval: true}, true
	}
	if stepDone {
		return Action{Deployment: d, CreateEval: true}, true
	}
	return Action{}, false
}

// stepReached reports whether every placed alloc is healthy and the
// deployment placed more than at the step that last got an eval.
func stepReached(d *structs.Deployment, lastStep int) bool {
	placed := totalPlaced(d)
	if placed <= lastStep {
		return false
	}
	for _, g := range d.TaskGroups {
		if g.HealthyAllocs < g.PlacedAllocs {
			return false
		}
	}
	return true
}

func totalPlaced(d *structs.Deployment) int {
	n := 0
	for _, g := range d.TaskGroups {
		n += g.PlacedAllocs
	}
	return n
}

// autoPromotable lists the groups with auto_promote whose canaries are all
// placed and healthy but not yet promoted, in name order.
func autoPromotable(d *structs.Deployment) []string {
	var groups []string
	for name, g := range d.TaskGroups {
		if g.AutoPromote && !g.Promoted && g.DesiredCanaries > 0 && g.HealthyAllocs >= g.DesiredCanaries {
			groups = append(groups, name)
		}
	}
	slices.Sort(groups)
	return groups
}

// failed fails the deployment and asks for an eval so the scheduler stops
// the rollout (and, with auto_revert, the job is reverted by the caller).
func failed(d *structs.Deployment, desc string) Action {
	return Action{Deployment: d, CreateEval: true, Update: &structs.DeploymentStatusUpdate{
		DeploymentID: d.ID, Status: structs.DeploymentStatusFailed, StatusDescription: desc,
	}}
}

func unhealthy(d *structs.Deployment) bool {
	for _, g := range d.TaskGroups {
		if g.UnhealthyAllocs > 0 {
			return true
		}
	}
	return false
}

// pastDeadline reports whether a group that is not yet done has made no
// progress by its deadline.
func pastDeadline(d *structs.Deployment, now time.Time) bool {
	for _, g := range d.TaskGroups {
		if g.ProgressDeadline > 0 && !g.RequireProgressBy.IsZero() && now.After(g.RequireProgressBy) && !groupComplete(g) {
			return true
		}
	}
	return false
}

func complete(d *structs.Deployment) bool {
	if len(d.TaskGroups) == 0 {
		return false
	}
	for _, g := range d.TaskGroups {
		if !groupComplete(g) {
			return false
		}
	}
	return true
}

// groupComplete: every desired alloc is healthy and canaries, if any,
// were promoted.
func groupComplete(g *structs.DeploymentState) bool {
	return g.HealthyAllocs >= g.DesiredTotal && (g.DesiredCanaries == 0 || g.Promoted)
}

// NextDeadline returns the earliest progress deadline among running
// deployments, so the caller knows when to step again without a change.
func NextDeadline(deployments []*structs.Deployment) time.Time {
	var next time.Time
	for _, d := range deployments {
		if d.Status != structs.DeploymentStatusRunning {
			continue
		}
		for _, g := range d.TaskGroups {
			if g.RequireProgressBy.IsZero() || groupComplete(g) {
				continue
			}
			if next.IsZero() || g.RequireProgressBy.Before(next) {
				next = g.RequireProgressBy
			}
		}
	}
	return next
}
