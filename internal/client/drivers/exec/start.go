package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

// setupTimeout bounds how long Start waits for the executor's status.
const setupTimeout = 30 * time.Second

// ErrNoTaskDir is returned for a task without a dir to chroot into.
var ErrNoTaskDir = errors.New("exec needs TaskDir.Dir to chroot into")

// namespaces the executor (and so the task) gets.
const cloneFlags = syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS

// Start implements drivers.Driver.
func (d *Driver) Start(ctx context.Context, tc *drivers.TaskConfig) (*drivers.TaskHandle, error) {
	if reason, ok := d.usable(); !ok {
		return nil, errors.New(reason)
	}
	cfg, err := DecodeTaskConfig(tc.Config)
	if err != nil {
		return nil, err
	}
	if tc.TaskDir.Dir == "" {
		return nil, ErrNoTaskDir
	}
	cg, err := newCgroup(DetectCgroups(), d.opts.CgroupParent, safeName(tc.ID))
	if err != nil {
		return nil, err
	}
	t, err := d.launch(ctx, tc, cfg, cg)
	if err != nil {
		_ = cg.destroy()
		return nil, err
	}
	if err := d.tasks.Add(t.id, t); err != nil {
		_ = d.kill(t)
		return nil, err
	}
	return t.handle()
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// safeName turns a task ID ("alloc/task") into a file and cgroup name.
func safeName(id string) string { return unsafeChars.ReplaceAllString(id, "_") }

func (d *Driver) launch(ctx context.Context, tc *drivers.TaskConfig, cfg *TaskConfig, cg *cgroup) (*task, error) {
	if err := cg.setLimits(tc.Resources); err != nil {
		return nil, err
	}
	spec, err := d.buildSpec(tc, cfg, cg)
	if err != nil {
		return nil, err
	}
	_ = os.Remove(spec.ExitFile) // a stale one from an earlier run would lie
	cmd, err := d.startExecutor(ctx, spec, tc.NetNSPath())
	if err != nil {
		return nil, err
	}
	t := &task{id: tc.ID, cg: cg, exit: drivers.NewExitWaiter()}
	t.state = taskState{ExecutorPID: cmd.Process.Pid, ExitFile: spec.ExitFile, Cgroup: cg.cgroupState, StartedAt: time.Now()}
	t.state.ExecutorStartTime, _ = procutil.StartTime(cmd.Process.Pid)
	go func() { t.finish(procutil.ExitFromState(cmd.ProcessState, cmd.Wait())) }()
	return t, nil
}

func (d *Driver) buildSpec(tc *drivers.TaskConfig, cfg *TaskConfig, cg *cgroup) (*executorSpec, error) {
	user, err := d.cfg.User.taskUser(tc.User)
	if err != nil {
		return nil, err
	}
	caps, err := taskCaps(d.cfg.AllowCaps, cfg.CapAdd, cfg.CapDrop)
	if err != nil {
		return nil, err
	}
	stateDir := d.opts.StateDir
	if stateDir == "" {
		stateDir = filepath.Dir(filepath.Clean(tc.TaskDir.Dir))
	}
	spec := &executorSpec{
		Command: cfg.Command, Args: cfg.Args, Env: drivers.EnvList(tc.Env), User: user,
		Caps: caps, OwnDirs: nonEmpty(tc.TaskDir.LocalDir, tc.TaskDir.SecretsDir),
		SharedDirs: sharedDirs(tc.TaskDir.AllocDir),
		Root:       tc.TaskDir.Dir,
		ReadOnly:   append(readOnlyMounts(d.cfg.ChrootEnv), volumeMounts(tc.Mounts, true)...),
		ReadWrite:  append(taskMounts(tc.TaskDir), volumeMounts(tc.Mounts, false)...),
		Hostname:   tc.TaskName,
		StdoutPath: tc.StdoutPath, StderrPath: tc.StderrPath,
		CgroupProcs: cg.procsFiles(),
		ExitFile:    filepath.Join(stateDir, "exec-"+safeName(tc.ID)+".exit.json"),
	}
	networkFiles(spec, tc.Network)
	return spec, nil
}

// networkFiles gives the task the alloc network's hostname and binds its
// resolv.conf, hosts and hostname files over the chroot's /etc ones.
func networkFiles(spec *executorSpec, n *drivers.NetworkIsolation) {
	if n == nil {
		return
	}
	if n.Hostname != "" {
		spec.Hostname = n.Hostname
	}
	for _, m := range []mount{{n.ResolvConfPath, "/etc/resolv.conf"}, {n.HostsPath, "/etc/hosts"}, {n.HostnamePath, "/etc/hostname"}} {
		if m.Source != "" {
			spec.ReadOnly = append(spec.ReadOnly, m)
		}
	}
}

// startExecutor launches the executor in fresh namespaces and waits for
// its status line: setup errors (a missing command, a failed mount)
// surface here, as Start errors, rather than as an odd exit later.
func (d *Driver) startExecutor(ctx context.Context, spec *executorSpec, netns string) (*exec.Cmd, error) {
	in, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer statusR.Close()
	cmd := exec.Command(d.opts.ExecutorCommand[0], d.opts.ExecutorCommand[1:]...)
	cmd.Env = d.opts.ExecutorEnv
	cmd.Stdin = bytes.NewReader(in)
	cmd.ExtraFiles = []*os.File{statusW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: cloneFlags, Setsid: true}
	if stderr, err := drivers.OpenLog(spec.StderrPath); err == nil {
		cmd.Stderr = stderr // executor crashes land in the task's stderr
		defer stderr.Close()
	}
	err = drivers.StartInNetNS(cmd, netns) // the executor, and so the task, in the alloc's namespace
	statusW.Close()
	if err != nil {
		return nil, fmt.Errorf("start executor: %w", err)
	}
	if err := readStatus(ctx, statusR); err != nil {
		// Unlike raw_exec's supervisor, killing the executor kills the
		// task too: the executor is PID 1 of the task's PID namespace
		// (CLONE_NEWPID), whose death SIGKILLs every process in it, and
		// Start then destroys the task's cgroup.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, err
	}
	return cmd, nil
}

// readStatus waits for the executor's status line, at most setupTimeout.
func readStatus(ctx context.Context, r *os.File) error {
	ctx, cancel := context.WithTimeoutCause(ctx, setupTimeout, fmt.Errorf("executor did not report within %s", setupTimeout))
	defer cancel()
	err := drivers.ReadSupervisorStatus(ctx, r, "executor")
	if err != nil && ctx.Err() != nil {
		return context.Cause(ctx) // the timeout, or the caller's cancellation
	}
	return err
}

// volumeMounts are the task's host volumes of one kind (read-only or not),
// bound into the chroot at their destination.
func volumeMounts(mounts []drivers.MountConfig, readOnly bool) []mount {
	var out []mount
	for _, m := range mounts {
		if m.ReadOnly == readOnly {
			out = append(out, mount{Source: m.HostPath, Target: m.TaskPath})
		}
	}
	return out
}
