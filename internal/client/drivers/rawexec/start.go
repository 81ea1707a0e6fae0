package rawexec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/procutil"
)

// Start implements drivers.Driver. The task runs under a supervisor (this
// binary with SupervisorArg) that records its exit status in a file, so a
// client that restarts while the task runs still learns how it ended.
func (d *Driver) Start(ctx context.Context, tc *drivers.TaskConfig) (*drivers.TaskHandle, error) {
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
	spec, err := buildSpec(tc, cfg)
	if err != nil {
		return nil, err
	}
	_ = os.Remove(spec.ExitFile) // a stale one from an earlier run would lie
	cmd, err := d.startSupervisor(ctx, tc, spec)
	if err != nil {
		return nil, err
	}
	t := &task{id: tc.ID, exit: drivers.NewExitWaiter()}
	t.state = taskState{PID: cmd.Process.Pid, StartedAt: time.Now(), ExitFile: spec.ExitFile}
	t.state.StartTime, _ = procutil.StartTime(t.state.PID)
	go func() { t.finish(procutil.ExitFromState(cmd.ProcessState, cmd.Wait())) }()
	if err := d.tasks.Add(t.id, t); err != nil {
		_ = procutil.SignalGroup(t.state.PID, syscall.SIGKILL)
		return nil, err
	}
	return t.handle()
}

func buildSpec(tc *drivers.TaskConfig, cfg *TaskConfig) (*supervisorSpec, error) {
	path, err := resolveCommand(cfg.Command, tc.TaskDir.Dir)
	if err != nil {
		return nil, err
	}
	spec := &supervisorSpec{
		Path: path, Args: append([]string{path}, cfg.Args...), Dir: tc.TaskDir.Dir,
		Env: drivers.EnvList(tc.Env), ExitFile: exitFilePath(tc),
	}
	if tc.User != "" {
		if spec.Credential, err = drivers.LookupCredential(tc.User); err != nil {
			return nil, err
		}
	}
	return spec, nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// exitFilePath puts the exit file in the alloc dir (the task dir's
// parent), out of the task's reach and removed with the alloc.
func exitFilePath(tc *drivers.TaskConfig) string {
	dir := os.TempDir()
	if tc.TaskDir.Dir != "" {
		dir = filepath.Dir(filepath.Clean(tc.TaskDir.Dir))
	}
	return filepath.Join(dir, "raw_exec-"+unsafeChars.ReplaceAllString(tc.ID, "_")+".exit.json")
}

// startSupervisor launches the supervisor in a process group of its own
// (the task joins it: Stop signals the group, and a Ctrl-C at a dev
// agent's terminal does not reach the tasks) and waits for its status
// line, so a command that cannot start is a Start error.
func (d *Driver) startSupervisor(ctx context.Context, tc *drivers.TaskConfig, spec *supervisorSpec) (*exec.Cmd, error) {
	in, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locate the raw_exec supervisor binary: %w", err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer statusR.Close()
	cmd := exec.Command(self, SupervisorArg)
	cmd.Dir = spec.Dir
	cmd.Stdin = bytes.NewReader(in)
	cmd.ExtraFiles = []*os.File{statusW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	closeLogs, err := attachLogs(cmd, tc)
	if err != nil {
		statusW.Close()
		return nil, err
	}
	err = drivers.StartInNetNS(cmd, tc.NetNSPath()) // the task inherits the alloc's namespace
	closeLogs()                                     // the supervisor holds its own copies
	statusW.Close()
	if err != nil {
		return nil, fmt.Errorf("start raw_exec supervisor: %w", err)
	}
	// Recorded before anything can go wrong, so that a client dying from
	// here on leaves the group to ReapOrphans.
	start, _ := procutil.StartTime(cmd.Process.Pid)
	if err := writeGroupRecord(groupRecordPath(spec.ExitFile), groupRecord{TaskID: tc.ID, PGID: cmd.Process.Pid, StartTime: start}); err != nil {
		_ = procutil.SignalGroup(cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		return nil, fmt.Errorf("record the raw_exec process group: %w", err)
	}
	if testHookSupervisorStarted != nil {
		testHookSupervisorStarted(cmd.Process.Pid)
	}
	err = drivers.ReadSupervisorStatus(ctx, statusR, "raw_exec supervisor")
	if err == nil && ctx.Err() != nil {
		// Stopped while starting: the caller treats the start as aborted
		// and will never track (or stop) this task, so it must not run.
		err = ctx.Err()
	}
	if err != nil {
		// The whole group, not just the supervisor: the task may have
		// been forked already, and would otherwise be re-parented to init
		// and run on untracked.
		_ = procutil.SignalGroup(cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		_ = os.Remove(groupRecordPath(spec.ExitFile))
		return nil, err
	}
	return cmd, nil
}

// testHookSupervisorStarted, when set (tests), runs once the supervisor
// process exists and before Start reads its status: the point at which a
// stop can arrive while the task is being forked.
var testHookSupervisorStarted func(pgid int)

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
