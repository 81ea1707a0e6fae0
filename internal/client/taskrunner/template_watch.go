package taskrunner

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/clock"
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
	for w.waitForChange(w.tr.runCtx, deps) {
		minWait, maxWait := w.waitBounds()
		alive := settle(w.tr.clock, minWait, maxWait, func(d time.Duration) (bool, bool) { return w.changeWithin(deps, d) })
		if !alive {
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

// waitForChange blocks until one dependency's index passes what was last
// seen (moving that dependency's index up to it) or ctx ends; it returns
// whether a change came. Every waiter has stopped when it returns, so the
// indexes are not written behind the caller's back.
func (w *templateWatch) waitForChange(ctx context.Context, deps []*templateDep) bool {
	ctx, cancel := context.WithCancel(ctx)
	fired := make(chan struct{}, len(deps))
	var wg sync.WaitGroup
	for _, d := range deps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				idx, err := d.block(ctx, d.index)
				if err == nil && idx > d.index {
					d.index = idx
					fired <- struct{}{}
					return
				}
				if err != nil && !w.sleepCtx(ctx, retryDelay) {
					return
				}
			}
		}()
	}
	got := false
	select {
	case <-fired:
		got = true
	case <-ctx.Done():
	}
	cancel()
	wg.Wait()
	return got
}

// changeWithin waits up to d (on the clock) for another change; alive is
// false once the task runner ends.
func (w *templateWatch) changeWithin(deps []*templateDep, d time.Duration) (changed, alive bool) {
	ctx, cancel := context.WithCancel(w.tr.runCtx)
	defer cancel()
	timer := w.tr.clock.AfterFunc(d, cancel)
	defer timer.Stop()
	changed = w.waitForChange(ctx, deps)
	return changed, w.tr.runCtx.Err() == nil
}

// waitBounds are the task's wait { min max }: the longest of its
// templates' (a group of changes is rendered together).
func (w *templateWatch) waitBounds() (minWait, maxWait time.Duration) {
	for _, t := range w.task.Templates {
		if t.Wait != nil {
			minWait, maxWait = max(minWait, t.Wait.Min), max(maxWait, t.Wait.Max)
		}
	}
	return minWait, maxWait
}

// settle is wait { min max } after a first change: wait until changes
// stop for min (each new one starts the quiet period again), but no
// longer than max after the first, so a stream of changes still renders
// (a max below min is 4 x min, consul-template's default). changeWithin(d)
// waits up to d for another change. It returns false when the task
// runner ends.
func settle(clk clock.Clock, minWait, maxWait time.Duration, changeWithin func(time.Duration) (changed, alive bool)) bool {
	if minWait <= 0 {
		return true
	}
	if maxWait < minWait {
		maxWait = 4 * minWait
	}
	deadline := clk.Now().Add(maxWait)
	for {
		d := min(minWait, deadline.Sub(clk.Now()))
		if d <= 0 {
			return true
		}
		changed, alive := changeWithin(d)
		if !alive {
			return false
		}
		if !changed {
			return true
		}
	}
}

// render renders every template again and writes those whose output
// changed; it returns them and the env of env = true templates.
func (w *templateWatch) render(rd *dataReader) ([]*structs.Template, map[string]string, error) {
	var changed []*structs.Template
	env := map[string]string{}
	for _, t := range w.task.Templates {
		if t.Once { // rendered at the start only; its env stays as rendered
			if err := w.keepOnceEnv(t, env); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", templateName(t), err)
			}
			continue
		}
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

// keepOnceEnv copies the variables of a once template with env = true,
// as its file holds them, into env.
func (w *templateWatch) keepOnceEnv(t *structs.Template, env map[string]string) error {
	if !t.Envvars {
		return nil
	}
	dest, err := sandboxJoin(w.td.Dir, w.ip.String(t.DestPath))
	if err != nil {
		return err
	}
	b, err := os.ReadFile(dest)
	if err != nil {
		return err
	}
	vars, err := parseEnvFile(b)
	if err != nil {
		return err
	}
	maps.Copy(env, vars)
	return nil
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

// runScript runs a change_script inside the task through its driver's
// exec (as `alloc exec` does: the task's filesystem, user and env); a
// non-zero exit, a timeout or a driver without exec is a failure, and
// with fail_on_error a failure kills the task.
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
	out := &drivers.CappedOutput{Limit: 4096}
	cmd := []string{w.ip.String(cs.Command)}
	for _, a := range cs.Args {
		cmd = append(cmd, w.ip.String(a))
	}
	code, err := w.tr.Exec(ctx, &drivers.ExecRequest{Command: cmd, Stdin: strings.NewReader(""), Stdout: out, Stderr: out})
	if err == nil && code != 0 {
		err = fmt.Errorf("exit code %d", code)
	}
	now := w.tr.clock.Now()
	if err == nil {
		w.tr.emit(NewEvent(now, EventTemplateScript, "Template ran script "+cs.Command))
		return
	}
	msg := fmt.Sprintf("Template script %s failed: %v: %s", cs.Command, err, strings.TrimSpace(out.String()))
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
	rd := newDataReader(tr.runCtx, tr.cfg.TemplateData, "", tr.cfg.Alloc.Namespace)
	rd.current = tr.identityToken
	return rd
}
