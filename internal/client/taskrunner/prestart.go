package taskrunner

import (
	"fmt"
	"maps"
	"sync"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// Task event types of the prestart steps. The artifact ones are Nomad's;
// Nomad reports a failed template through a kill whose message starts
// with "Template failed:", which the display message here keeps.
const (
	EventDownloadingArtifacts   = "Downloading Artifacts"
	EventArtifactDownloadFailed = "Failed Artifact Download"
	EventTemplateFailure        = "Template Failure"
	EventIdentityFailure        = "Failed Identity"
)

// prestartState is what the prestart steps leave for later starts of the
// same task. The run goroutine writes it; the template watcher replaces
// env after a re-render, hence the lock.
type prestartState struct {
	done bool

	mu  sync.Mutex
	env map[string]string // from templates with env = true
}

func (ps *prestartState) setEnv(env map[string]string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.env = env
}

func (ps *prestartState) getEnv() map[string]string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.env
}

// prestart fetches the task's artifacts, then renders its templates (the
// order Nomad uses, so a template may read an artifact), before the driver
// starts the task. Both run once per task runner, as in Nomad: a restart
// of the task reuses what the first start fetched and rendered. Templates
// with env = true add their variables to env. On failure the returned
// event type says which step failed.
func (tr *TaskRunner) prestart(task *structs.Task, td drivers.TaskDir, env map[string]string, node *structs.Node) (string, error) {
	ps := &tr.prestartState
	if !ps.done {
		tr.mu.Lock()
		job := tr.alloc.Job
		tr.mu.Unlock()
		if err := writeDispatchPayload(td, job, task); err != nil {
			return EventSetupFailure, err
		}
		ip := NewInterpolator(env, node, tr.cfg.Region)
		if err := tr.fetchIdentity(task, td); err != nil {
			return EventIdentityFailure, err
		}
		maps.Copy(env, tr.identityEnv(task))
		tr.startTaskAPI(td.SecretsDir)
		if len(task.Artifacts) > 0 {
			tr.emit(NewEvent(tr.clock.Now(), EventDownloadingArtifacts, "Client is downloading artifacts"))
			if err := fetchArtifacts(tr.runCtx, td.Dir, task.Artifacts, ip, tr.cfg.AllowHostArtifacts); err != nil {
				return EventArtifactDownloadFailed, err
			}
		}
		rd := tr.newDataReader(task)
		tenv, err := renderTemplates(td.Dir, task.Templates, env, ip, rd)
		if err != nil {
			// Capitalised: the error becomes the event's display message,
			// worded as Nomad's.
			//lint:ignore ST1005 the message is shown to users as Nomad words it
			return EventTemplateFailure, fmt.Errorf("Template failed: %w", err)
		}
		ps.setEnv(tenv)
		ps.done = true
		tr.startTemplateWatch(task, td, env, ip, rd.dependencies())
	}
	// Template variables win over the task's env block, as in Nomad.
	maps.Copy(env, ps.getEnv())
	maps.Copy(env, tr.identityEnv(task))
	return "", nil
}
