package allocrunner

import (
	"fmt"

	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

// phase is where a task runs in the alloc's lifecycle.
type phase int

const (
	phasePrestart phase = iota
	phaseMain
	phasePoststart
	phasePoststop
)

func phaseOf(t *structs.Task) (phase, bool) {
	lc := t.Lifecycle
	if lc == nil || lc.Hook == "" {
		return phaseMain, false
	}
	switch lc.Hook {
	case structs.TaskLifecycleHookPrestart:
		return phasePrestart, lc.Sidecar
	case structs.TaskLifecycleHookPoststart:
		return phasePoststart, lc.Sidecar
	case structs.TaskLifecycleHookPoststop:
		return phasePoststop, false
	}
	return phaseMain, false
}

// view is one task as step sees it.
type view struct {
	tr      *taskrunner.TaskRunner
	task    *structs.Task
	phase   phase
	sidecar bool
	state   *structs.TaskState
}

func (v view) dead() bool    { return v.state.State == structs.TaskStateDead }
func (v view) running() bool { return v.state.State == structs.TaskStateRunning }

func (r *Runner) views() []view {
	var out []view
	for _, tr := range r.Tasks() {
		t := tr.Task()
		p, sc := phaseOf(t)
		out = append(out, view{tr: tr, task: t, phase: p, sidecar: sc, state: tr.State()})
	}
	return out
}

// step advances the lifecycle one notch from the tasks' current states:
// prestart tasks first; main tasks once the ephemeral prestart tasks have
// completed and the prestart sidecars run; poststart tasks once every main
// task runs; when the main tasks are all dead (or a task failed, or the
// server stopped the alloc) everything else is killed, then the poststop
// tasks run.
func (r *Runner) step() {
	vs := r.views()
	r.checkFailures(vs)
	r.mu.Lock()
	stopping := r.stopping
	r.mu.Unlock()
	if stopping {
		r.stepStopping(vs)
		return
	}
	r.startPhase(vs, phasePrestart)
	if !prestartDone(vs) {
		return
	}
	r.startPhase(vs, phaseMain)
	if mainRunning(vs) {
		r.startPhase(vs, phasePoststart)
	}
	if mainDead(vs) {
		r.beginStop(nil)
		r.stepStopping(r.views())
	}
}

func (r *Runner) startPhase(vs []view, p phase) {
	for _, v := range vs {
		if v.phase == p && !v.tr.Started() {
			go v.tr.Run()
		}
	}
}

func prestartDone(vs []view) bool {
	for _, v := range vs {
		if v.phase != phasePrestart {
			continue
		}
		if v.sidecar && !v.running() && !v.dead() {
			return false
		}
		if !v.sidecar && (!v.dead() || v.state.Failed) {
			return false
		}
	}
	return true
}

func mainRunning(vs []view) bool {
	any := false
	for _, v := range vs {
		if v.phase == phaseMain {
			any = true
			if !v.running() && !v.dead() {
				return false
			}
		}
	}
	return any
}

// mainDead reports whether the main tasks have all finished. A group of
// hooks only (no main task) is treated as done once its prestart ran.
func mainDead(vs []view) bool {
	for _, v := range vs {
		if v.phase == phaseMain && !v.dead() {
			return false
		}
	}
	return true
}

// checkFailures starts stopping the alloc when a task failed, or when a
// leader task finished.
func (r *Runner) checkFailures(vs []view) {
	for _, v := range vs {
		if !v.dead() || v.phase == phasePoststop {
			continue
		}
		if v.state.Failed {
			r.beginStop(func() *structs.TaskEvent {
				ev := taskrunner.NewEvent(r.clock.Now(), taskrunner.EventSiblingFailed, fmt.Sprintf("Task's sibling %q failed", v.task.Name))
				ev.Details["failed_sibling"] = v.task.Name
				return ev
			})
			return
		}
		if v.task.Leader {
			r.beginStop(func() *structs.TaskEvent {
				return taskrunner.NewEvent(r.clock.Now(), taskrunner.EventLeaderDead, "Leader Task completed")
			})
			return
		}
	}
}

// beginStop switches the alloc to stopping; reason builds the event each
// killed task records (nil: none). The first reason wins.
func (r *Runner) beginStop(reason func() *structs.TaskEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopping {
		return
	}
	r.stopping = true
	if r.checker != nil {
		r.checker.Stop() // a stopping alloc's checks could only fail
	}
	if reason == nil {
		return
	}
	for name := range r.tasks {
		r.stopReason[name] = reason()
	}
}

// stepStopping kills whatever is not a poststop task, then runs the
// poststop tasks once the rest are dead. As in Nomad, the group's services
// leave the catalog first and the group's shutdown_delay passes before
// the first kill; each task's own services leave right before its kill
// (its shutdown_delay is then the task runner's).
func (r *Runner) stepStopping(vs []view) {
	var live []view
	running := false
	for _, v := range vs {
		if v.phase != phasePoststop && !v.dead() {
			live = append(live, v)
			running = running || v.running()
		}
	}
	if len(live) == 0 {
		r.startPhase(vs, phasePoststop)
		return
	}
	if !r.groupDelayOver(running) {
		r.syncServices(vs)
		return
	}
	r.mu.Lock()
	for _, v := range live {
		r.killSent[v.task.Name] = true
	}
	r.mu.Unlock()
	r.syncServices(vs)
	for _, v := range live {
		r.mu.Lock()
		ev := r.stopReason[v.task.Name]
		delete(r.stopReason, v.task.Name)
		r.mu.Unlock()
		v.tr.Kill(ev)
	}
}
