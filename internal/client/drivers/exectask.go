package drivers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ExecRequest is a command to run inside a running task's environment
// (Nomad's `alloc exec`). Stdin may be nil.
type ExecRequest struct {
	Command []string
	TTY     bool // run on a pseudo-terminal (stdout gets all output)
	// Resize carries the caller's terminal size changes (TTY only); may
	// be nil.
	Resize <-chan TerminalSize
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Execer is implemented by drivers that can run a command in one of
// their running tasks. ExecTask returns the command's exit code; an
// error means it could not be run at all.
type Execer interface {
	ExecTask(ctx context.Context, taskID string, req *ExecRequest) (int, error)
}

// ProcessEnv reads a running process's environment as KEY=VALUE pairs:
// what the task was started with, so an exec'd command sees the same
// NOMAD_* variables the task does.
func ProcessEnv(pid int) ([]string, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return nil, err
	}
	var env []string
	for _, kv := range bytes.Split(raw, []byte{0}) {
		if len(kv) > 0 {
			env = append(env, string(kv))
		}
	}
	return env, nil
}

// ChildProcess finds the task's process under its supervisor (exec's
// executor, raw_exec's supervisor). A supervisor may fork from a locked
// OS thread, so every thread's children are looked at.
func ChildProcess(executorPID int) (int, error) {
	threads, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", executorPID))
	if err != nil {
		return 0, err
	}
	for _, f := range threads {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended meanwhile
		}
		if fields := strings.Fields(string(raw)); len(fields) > 0 {
			return strconv.Atoi(fields[0])
		}
	}
	return 0, ErrTaskGone
}

// ExecTarget finds a live task's process under its supervisor and reads
// its environment: what an exec session runs with. exited reports whether
// the task already ended.
func ExecTarget(supervisorPID int, exited bool) (pid int, env []string, err error) {
	if exited {
		return 0, nil, ErrTaskGone
	}
	if pid, err = ChildProcess(supervisorPID); err != nil {
		return 0, nil, err
	}
	if env, err = ProcessEnv(pid); err != nil {
		return 0, nil, fmt.Errorf("read the task's environment: %w", err)
	}
	return pid, env, nil
}

// ProcessIDs reads a process's real uid and gid.
func ProcessIDs(pid int) (string, string, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "", "", err
	}
	var uid, gid string
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "Uid:" {
			uid = f[1]
		}
		if len(f) >= 2 && f[0] == "Gid:" {
			gid = f[1]
		}
	}
	if uid == "" || gid == "" {
		return "", "", fmt.Errorf("process %d: no Uid/Gid in its status", pid)
	}
	return uid, gid, nil
}

// LookPathIn resolves a command name against the PATH of env (falling
// back to the agent's PATH), as a shell in the task would.
func LookPathIn(name string, env []string) string {
	if strings.Contains(name, "/") {
		return name
	}
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range strings.Split(p, ":") {
				cand := dir + "/" + name
				if fi, err := os.Stat(cand); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
					return cand
				}
			}
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return name
}

// execOutputGrace bounds how long output is still copied after the
// command exited (a background child may hold its stdout open).
const execOutputGrace = 2 * time.Second

// RunExec runs cmd with the request's streams and returns its exit code.
// A command that cannot be started (not found, not executable) exits 127
// and says why on stderr, as a shell would, rather than failing the
// session.
func RunExec(cmd *exec.Cmd, req *ExecRequest) (int, error) {
	return RunExecWith(cmd, req, (*exec.Cmd).Start)
}

// RunExecWith is RunExec with the call that starts cmd (once its streams
// are set up) supplied: exec's driver forks it from a thread inside the
// task's namespaces.
func RunExecWith(cmd *exec.Cmd, req *ExecRequest, start func(*exec.Cmd) error) (int, error) {
	cmd.WaitDelay = execOutputGrace
	if req.TTY {
		return execResult(cmd, req, runWithPTY(cmd, req, start))
	}
	cmd.Stdout, cmd.Stderr = req.Stdout, req.Stderr
	if req.Stdin != nil {
		// A real pipe, fed by a goroutine this function stops: with a
		// plain reader, Wait would block until the caller closed stdin
		// even after the command exited.
		r, w, err := os.Pipe()
		if err != nil {
			return 0, err
		}
		defer r.Close()
		defer w.Close()
		go func() { _, _ = io.Copy(w, req.Stdin); w.Close() }()
		cmd.Stdin = r
	}
	if err := start(cmd); err != nil {
		return execResult(cmd, req, err)
	}
	return execResult(cmd, req, cmd.Wait())
}

// execResult turns how cmd ended into an exit code.
func execResult(cmd *exec.Cmd, req *ExecRequest, err error) (int, error) {
	var exitErr *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		return max(cmd.ProcessState.ExitCode(), 0), nil
	case errors.As(err, &exitErr):
		if code := exitErr.ExitCode(); code >= 0 {
			return code, nil
		}
		return 128 + 9, nil // killed by a signal
	case cmd.Process == nil:
		fmt.Fprintf(req.Stderr, "failed to exec %q: %v\n", req.Command[0], err)
		return 127, nil
	}
	return 0, err
}
