package taskrunner

import (
	"fmt"
	"path/filepath"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// IdentityFile is where `identity { file = true }` puts the token, in the
// task's secrets dir.
const IdentityFile = "nomad_token"

// fetchIdentity gets the task's workload identity once, before templates
// (which read variables and services with it), and writes it to the
// secrets dir when the task asks for the file.
func (tr *TaskRunner) fetchIdentity(task *structs.Task, td drivers.TaskDir) error {
	if tr.cfg.Identity == nil || (task.Identity == nil && len(task.Templates) == 0) {
		return nil
	}
	token, err := tr.cfg.Identity(tr.runCtx, task.Name)
	if err != nil {
		return fmt.Errorf("fetching workload identity: %w", err)
	}
	tr.prestartState.mu.Lock()
	tr.prestartState.token = token
	tr.prestartState.mu.Unlock()
	if task.Identity != nil && task.Identity.File {
		if err := writeFileAtomic(filepath.Join(td.SecretsDir, IdentityFile), []byte(token), 0o600); err != nil {
			return fmt.Errorf("writing workload identity: %w", err)
		}
	}
	return nil
}

// identityEnv is NOMAD_TOKEN for a task with `identity { env = true }`.
func (tr *TaskRunner) identityEnv(task *structs.Task) map[string]string {
	token := tr.prestartState.getToken()
	if task.Identity == nil || !task.Identity.Env || token == "" {
		return nil
	}
	return map[string]string{"NOMAD_TOKEN": token}
}
