package taskrunner

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os/exec"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// Template change modes (Nomad's).
const (
	ChangeModeRestart = "restart"
	ChangeModeSignal  = "signal"
	ChangeModeNoop    = "noop"
	ChangeModeScript  = "script"
)

// Task event types of template re-renders.
const (
	EventTemplateRerendered = "Template Re-rendered"
	EventTemplateScript     = "Template Script"
)

// retryDelay paces a watcher whose blocking query failed (servers away).
const retryDelay = time.Second

// templateWatch follows the data a task's templates read and renders them
// again when it changes. Only files whose content changed count; their
// change modes then decide what happens to the running task.
type templateWatch struct {
	tr   *TaskRunner
	task *structs.Task
	td   drivers.TaskDir
	env  map[string]string
	ip   *Interpolator
}

// startTemplateWatch runs the watcher when a render read Nomad data.
func (tr *TaskRunner) startTemplateWatch(task *structs.Task, td drivers.TaskDir, env map[string]string, ip *Interpolator, deps []*templateDep) {
	if len(deps) == 0 {
		return
	}
	w := &templateWatch{tr: tr, task: task, td: td, env: maps.Clone(env), ip: ip}
	go w.run(deps)
}

func (w *templateWatch) run(deps []*templateDep) {
	for w.waitForChange(deps) {
		if !w.sleep(w.quietPeriod()) {
			return
		}
		rd := w.tr.newDataReader(w.task)
		changed, env, err := w.render(rd)
		if next := rd.dependencies(); len(next) > 0 {
			deps = next
		}
		if err != nil {
			w.tr.emit(NewEvent(w.tr.clock.Now(), EventTemplateFailure, "Template failed: "+err.Error()))
			continue
		}
		if len(changed) == 0 {
			continue
		}
		w.tr.prestartState.setEnv(env)
		w.apply(changed)
	}
}

// waitForChange blocks until one dependency's index passes what the last
// render saw; false when the task runner ends.
func (w *templateWatch) waitForChange(deps []*templateDep) bool {
	ctx, cancel := context.WithCancel(w.tr.runCtx)
	defer cancel()
	fired := make(chan struct{}, len(deps))
	for _, d := range deps {
		go func() {
			for ctx.Err() == nil {
				idx, err := d.block(ctx, d.index)
				if err == nil && idx > d.index {
					fired <- struct{}{}
					return
				}
				if err != nil && !w.sleepCtx(ctx, retryDelay) {
					return
				}
			}
		}()
	}
	select {
	case <-fired:
		return true
	case <-w.tr.runCtx.Done():
		return false
	}
}

// quietPeriod is the longest wait.min of the task's templates: changes
// arriving meanwhile are rendered together.
func (w *templateWatch) quietPeriod() time.Duration {
	var d time.Duration
	for _, t := range w.task.Templates {
		if t.Wait != nil {
			d = max(d, t.Wait.Min)
		}
	}
	return d
}

// render renders every template again and writes those whose output
// changed; it returns them and the env of env = true templates.
func (w *templateWatch) render(rd *dataReader) ([]*structs.Template, map[string]string, error) {
	var changed []*structs.Template
	env := map[string]string{}
	for _, t := range w.task.Templates {
		r, err := renderTemplate(w.td.Dir, t, w.env, w.ip, rd)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", templateName(t), err)
		}
		maps.Copy(env, r.env)
		if !r.changed() {
			continue
		}
		if err := r.write(); err != nil {
			return nil, nil, err
		}
		changed = append(changed, t)
	}
	return changed, env, nil
}

// apply acts on re-rendered templates after their splay: a restart if any
// asks for one (or feeds the env, which a running task cannot re-read),
// else each one's signal or script.
func (w *templateWatch) apply(changed []*structs.Template) {
	var splay time.Duration
	restart := false
	for _, t := range changed {
		splay = max(splay, t.Splay)
		restart = restart || t.Envvars || t.ChangeMode == "" || t.ChangeMode == ChangeModeRestart
	}
	if splay > 0 && !w.sleep(time.Duration(rand.Int64N(int64(splay)))) {
		return
	}
	now := w.tr.clock.Now()
	if restart {
		w.tr.restartFor(NewEvent(now, EventRestartSignal, "Template with change_mode restart re-rendered"))
		return
	}
	for _, t := range changed {
		w.tr.emit(NewEvent(now, EventTemplateRerendered, templateName(t)+" re-rendered"))
		switch t.ChangeMode {
		case ChangeModeSignal:
			if err := w.tr.Signal(t.ChangeSignal); err != nil {
				w.tr.emit(NewEvent(now, EventTemplateFailure, fmt.Sprintf("Template failed to send signal %s: %v", t.ChangeSignal, err)))
			}
		case ChangeModeScript:
			w.runScript(t)
		}
	}
}

// runScript runs a change_script in the task dir with the task's env, on
// the client host (drivers offer no exec into the task); with
// fail_on_error a failure kills the task.
func (w *templateWatch) runScript(t *structs.Template) {
	cs := t.ChangeScript
	if cs == nil || cs.Command == "" {
		return
	}
	timeout := cs.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(w.tr.runCtx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.ip.String(cs.Command), cs.Args...)
	cmd.Dir = w.td.Dir
	for k, v := range w.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	now := w.tr.clock.Now()
	if err == nil {
		w.tr.emit(NewEvent(now, EventTemplateScript, "Template ran script "+cs.Command))
		return
	}
	msg := fmt.Sprintf("Template script %s failed: %v: %s", cs.Command, err, out)
	w.tr.emit(NewEvent(now, EventTemplateFailure, msg))
	if cs.FailOnError {
		w.tr.Kill(NewEvent(now, EventKilling, msg))
	}
}

func (w *templateWatch) sleep(d time.Duration) bool { return w.sleepCtx(w.tr.runCtx, d) }

func (w *templateWatch) sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	select {
	case <-w.tr.clock.After(d):
		return true
	case <-ctx.Done():
		return false
	}
}

// restartFor queues a restart of the running task with ev as its reason.
func (tr *TaskRunner) restartFor(ev *structs.TaskEvent) {
	if tr.State().State != structs.TaskStateRunning || tr.killed() {
		return
	}
	select {
	case tr.restartCh <- restartRequest{ev: ev}:
	default: // a restart is already queued
	}
}

// newDataReader is a data reader for one render of the task's templates.
func (tr *TaskRunner) newDataReader(task *structs.Task) *dataReader {
	if tr.cfg.TemplateData == nil {
		return nil
	}
	return newDataReader(tr.runCtx, tr.cfg.TemplateData, tr.prestartState.getToken(), tr.cfg.Alloc.Namespace)
}
