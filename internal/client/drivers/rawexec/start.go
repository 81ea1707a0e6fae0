package rawexec

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/procutil"
)

// Start implements drivers.Driver.
func (d *Driver) Start(_ context.Context, tc *drivers.TaskConfig) (*drivers.TaskHandle, error) {
	if !d.cfg.Enabled {
		return nil, drivers.ErrDriverDisabled
	}
	cfg, err := DecodeTaskConfig(tc.Config)
	if err != nil {
		return nil, err
	}
	if err := drivers.LinkMounts(tc.TaskDir.Dir, tc.Mounts); err != nil {
		return nil, err
	}
	cmd, err := buildCmd(tc, cfg)
	if err != nil {
		return nil, err
	}
	closeLogs, err := attachLogs(cmd, tc)
	if err != nil {
		return nil, err
	}
	err = cmd.Start()
	closeLogs() // the child holds its own copies
	if err != nil {
		return nil, fmt.Errorf("failed to start command %q: %w", cfg.Command, err)
	}
	t := &task{id: tc.ID, exit: drivers.NewExitWaiter()}
	t.state = taskState{PID: cmd.Process.Pid, StartedAt: time.Now()}
	t.state.StartTime, _ = procutil.StartTime(t.state.PID)
	go func() { t.exit.Set(procutil.ExitFromState(cmd.ProcessState, cmd.Wait())) }()
	if err := d.tasks.Add(t.id, t); err != nil {
		_ = procutil.SignalGroup(t.state.PID, syscall.SIGKILL)
		return nil, err
	}
	return t.handle()
}

func buildCmd(tc *drivers.TaskConfig, cfg *TaskConfig) (*exec.Cmd, error) {
	path, err := resolveCommand(cfg.Command, tc.TaskDir.Dir)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, cfg.Args...)
	cmd.Dir = tc.TaskDir.Dir
	cmd.Env = drivers.EnvList(tc.Env)
	// A process group of its own: Stop signals the group, and a Ctrl-C at
	// a dev agent's terminal does not reach the tasks.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if tc.User != "" {
		cred, err := drivers.LookupCredential(tc.User)
		if err != nil {
			return nil, err
		}
		cmd.SysProcAttr.Credential = cred
	}
	return cmd, nil
}

// resolveCommand finds the binary: a relative path with a slash is taken
// from the task dir, a bare name from PATH.
func resolveCommand(command, dir string) (string, error) {
	if filepath.Base(command) != command && !filepath.IsAbs(command) && dir != "" {
		command = filepath.Join(dir, command)
	}
	path, err := exec.LookPath(command)
	if err != nil {
		return "", fmt.Errorf("command %q not found: %w", command, err)
	}
	return path, nil
}

func attachLogs(cmd *exec.Cmd, tc *drivers.TaskConfig) (func(), error) {
	stdout, err := drivers.OpenLog(tc.StdoutPath)
	if err != nil {
		return nil, fmt.Errorf("failed to open stdout log: %w", err)
	}
	stderr, err := drivers.OpenLog(tc.StderrPath)
	if err != nil {
		stdout.Close()
		return nil, fmt.Errorf("failed to open stderr log: %w", err)
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return func() { stdout.Close(); stderr.Close() }, nil
}
