package taskrunner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// IdentityFile is where `identity { file = true }` puts the default
// identity's token, in the task's secrets dir; a named identity's goes to
// nomad_<name>.jwt there (Nomad's names), or to the block's filepath.
const IdentityFile = "nomad_token"

// IdentitySigner signs identities of the alloc's tasks (the servers'
// WorkloadIdentity.Sign, bound to the alloc).
type IdentitySigner func(ctx context.Context, reqs []structs.WorkloadIdentityRequest) ([]structs.SignedWorkloadIdentity, error)

// identityTokens are a task's signed identities, by name ("default" for
// the default one), replaced whole by each renewal.
type identityTokens struct {
	mu     sync.Mutex
	tokens map[string]structs.SignedWorkloadIdentity
	issued time.Time // when the current tokens were signed (client clock)
}

func (it *identityTokens) get(name string) string {
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.tokens[name].JWT
}

func (it *identityTokens) set(signed []structs.SignedWorkloadIdentity, now time.Time) {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.tokens == nil {
		it.tokens = map[string]structs.SignedWorkloadIdentity{}
	}
	for _, s := range signed {
		it.tokens[s.Identity] = s
	}
	it.issued = now
}

// taskIdentities lists the identities the task gets: the default one when
// it exposes it or has templates (which read with it), and every named
// one.
func taskIdentities(task *structs.Task) []*structs.WorkloadIdentity {
	var out []*structs.WorkloadIdentity
	if task.Identity != nil || len(task.Templates) > 0 {
		out = append(out, task.IdentityNamed(structs.WorkloadIdentityDefaultName))
	}
	for _, w := range task.Identities {
		if w != nil {
			out = append(out, w)
		}
	}
	return out
}

// signIdentities asks the servers for the tokens of ids.
func (tr *TaskRunner) signIdentities(task *structs.Task, ids []*structs.WorkloadIdentity) ([]structs.SignedWorkloadIdentity, error) {
	reqs := make([]structs.WorkloadIdentityRequest, len(ids))
	for i, w := range ids {
		reqs[i] = structs.WorkloadIdentityRequest{Task: task.Name, Identity: w.IdentityName()}
	}
	signed, err := tr.cfg.Identities(tr.runCtx, reqs)
	if err != nil {
		return nil, err
	}
	if len(signed) != len(reqs) {
		return nil, fmt.Errorf("asked for %d identities, the servers signed %d", len(reqs), len(signed))
	}
	return signed, nil
}

// fetchIdentity gets the task's workload identities once, before
// templates (which read variables and services with the default one),
// writes those with file = true, and starts their renewal when one has a
// TTL.
func (tr *TaskRunner) fetchIdentity(task *structs.Task, td drivers.TaskDir) error {
	ids := taskIdentities(task)
	if tr.cfg.Identities == nil || len(ids) == 0 {
		return nil
	}
	signed, err := tr.signIdentities(task, ids)
	if err != nil {
		return fmt.Errorf("fetching workload identity: %w", err)
	}
	tr.idTokens.set(signed, tr.clock.Now())
	if err := writeIdentityFiles(td, ids, signed); err != nil {
		return err
	}
	tr.startIdentityRenewal(task, td, ids)
	return nil
}

// identityPath is where an identity with file = true is written.
func identityPath(td drivers.TaskDir, w *structs.WorkloadIdentity) (string, error) {
	switch {
	case w.Filepath != "":
		return sandboxJoin(td.Dir, w.Filepath)
	case w.IsDefault():
		return filepath.Join(td.SecretsDir, IdentityFile), nil
	default:
		return filepath.Join(td.SecretsDir, "nomad_"+w.Name+".jwt"), nil
	}
}

func writeIdentityFiles(td drivers.TaskDir, ids []*structs.WorkloadIdentity, signed []structs.SignedWorkloadIdentity) error {
	for i, w := range ids {
		if !w.File {
			continue
		}
		p, err := identityPath(td, w)
		if err != nil {
			return fmt.Errorf("writing workload identity %q: %w", w.IdentityName(), err)
		}
		if err := writeFileAtomic(p, []byte(signed[i].JWT), 0o600); err != nil {
			return fmt.Errorf("writing workload identity %q: %w", w.IdentityName(), err)
		}
	}
	return nil
}

// identityEnv is NOMAD_TOKEN for a default identity with env = true and
// NOMAD_TOKEN_<name> for a named one.
func (tr *TaskRunner) identityEnv(task *structs.Task) map[string]string {
	out := map[string]string{}
	if task.Identity != nil && task.Identity.Env {
		if token := tr.idTokens.get(structs.WorkloadIdentityDefaultName); token != "" {
			out["NOMAD_TOKEN"] = token
		}
	}
	for _, w := range task.Identities {
		if w != nil && w.Env {
			if token := tr.idTokens.get(w.Name); token != "" {
				out["NOMAD_TOKEN_"+w.Name] = token
			}
		}
	}
	return out
}

// identityToken is the task's default identity ("" without one): what its
// templates read with.
func (tr *TaskRunner) identityToken() string {
	return tr.idTokens.get(structs.WorkloadIdentityDefaultName)
}

// renewAfter is how long after signing the identities with a TTL are
// renewed: half the shortest TTL (Nomad renews well before expiry too);
// 0 when none has a TTL.
func renewAfter(ids []*structs.WorkloadIdentity) time.Duration {
	var ttl time.Duration
	for _, w := range ids {
		if w.TTL > 0 && (ttl == 0 || w.TTL < ttl) {
			ttl = w.TTL
		}
	}
	return ttl / 2
}

// identityRetry is the wait before the first retry of a failed renewal;
// each further failure doubles it, up to identityRetryMax, and never past
// the renewal interval (a retry later than the next renewal would be).
const (
	identityRetry    = 5 * time.Second
	identityRetryMax = 2 * time.Minute
)

// identityBackoff is the wait after the failures-th failed renewal in a
// row (failures >= 1), for identities renewed every `every`.
func identityBackoff(failures int, every time.Duration) time.Duration {
	limit := min(identityRetryMax, max(every, identityRetry))
	wait := identityRetry
	for i := 1; i < failures && wait < limit; i++ {
		wait *= 2
	}
	return min(wait, limit)
}

// startIdentityRenewal renews the task's identities with a TTL before
// they expire, on the task runner's clock, until the runner stops: every
// renewal re-signs them together, rewrites their files, and then applies
// their change modes (restart wins over signals; noop only replaces the
// token, which the env gets at the next start).
func (tr *TaskRunner) startIdentityRenewal(task *structs.Task, td drivers.TaskDir, ids []*structs.WorkloadIdentity) {
	every := renewAfter(ids)
	if every <= 0 {
		return
	}
	var expiring []*structs.WorkloadIdentity
	for _, w := range ids {
		if w.TTL > 0 {
			expiring = append(expiring, w)
		}
	}
	// Once per runner: a re-attached task signs its identities on
	// re-attach and again at its first restart.
	started := false
	tr.renewOnce.Do(func() { started = true })
	if !started {
		return
	}
	go func() {
		wait, failures := every, 0
		for {
			select {
			case <-tr.clock.After(wait):
			case <-tr.runCtx.Done():
				return
			}
			signed, err := tr.signIdentities(task, expiring)
			if err == nil {
				err = writeIdentityFiles(td, expiring, signed)
			}
			if err != nil {
				failures++
				wait = identityBackoff(failures, every)
				tr.logger.Warn("renewing workload identities", "error", err, "failures", failures, "retry_in", wait)
				continue
			}
			failures = 0
			tr.idTokens.set(signed, tr.clock.Now())
			tr.logger.Debug("workload identities renewed", "identities", identityNames(expiring))
			tr.applyIdentityChange(expiring)
			wait = every
		}
	}()
}

func identityNames(ids []*structs.WorkloadIdentity) string {
	names := make([]string, len(ids))
	for i, w := range ids {
		names[i] = w.IdentityName()
	}
	return strings.Join(names, ", ")
}

// applyIdentityChange acts on renewed identities' change modes.
func (tr *TaskRunner) applyIdentityChange(renewed []*structs.WorkloadIdentity) {
	now := tr.clock.Now()
	for _, w := range renewed {
		if w.ChangeMode == structs.WIChangeModeRestart {
			tr.restartFor(NewEvent(now, EventRestartSignal, fmt.Sprintf("Workload identity %q renewed (change_mode restart)", w.IdentityName())))
			return
		}
	}
	for _, w := range renewed {
		if w.ChangeMode == structs.WIChangeModeSignal {
			if err := tr.Signal(w.ChangeSignal); err != nil {
				tr.emit(NewEvent(now, EventIdentityFailure, fmt.Sprintf("Workload identity %q renewed; sending %s failed: %v", w.IdentityName(), w.ChangeSignal, err)))
			}
		}
	}
}
