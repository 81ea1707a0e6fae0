package exec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/drover-project/drover/internal/client/drivers"
)

// ExecutorArg is the first argument that makes the drover binary run
// ExecutorMain (see the package doc).
const ExecutorArg = "exec-executor"

// statusFD is the status pipe's descriptor in the executor (ExtraFiles[0]).
const statusFD = 3

// forwarded are the signals the executor passes on to the task's process
// group. SIGCHLD and SIGURG (the Go runtime's preemption signal) are not.
var forwarded = []os.Signal{
	syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1,
	syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGWINCH, syscall.SIGCONT, syscall.SIGTSTP,
	syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGPIPE, syscall.SIGPROF, syscall.SIGVTALRM,
	syscall.SIGXCPU, syscall.SIGXFSZ, syscall.SIGIO, syscall.SIGABRT,
}

// ExecutorMain runs the executor and exits; it never returns.
func ExecutorMain() {
	os.Exit(runExecutor())
}

func runExecutor() int {
	// Handlers first: as PID 1 of its namespace the executor only
	// receives signals it handles, so none may arrive before this.
	sigs := make(chan os.Signal, 32)
	signal.Notify(sigs, forwarded...)
	status := os.NewFile(statusFD, "status")
	spec, err := readSpec(os.Stdin)
	var cmd *exec.Cmd
	if err == nil {
		cmd, err = setupAndStart(spec)
	}
	drivers.WriteSupervisorStatus(status, err)
	if err != nil {
		return 1
	}
	go forwardSignals(sigs, cmd.Process.Pid)
	rec := reap(cmd.Process.Pid)
	if err := drivers.WriteExitRecord(spec.ExitFile, rec); err != nil {
		fmt.Fprintf(os.Stderr, "executor: %v\n", err)
		return 1
	}
	return 0
}

func readSpec(r io.Reader) (*executorSpec, error) {
	var spec executorSpec
	if err := json.NewDecoder(r).Decode(&spec); err != nil {
		return nil, fmt.Errorf("read executor spec: %w", err)
	}
	return &spec, nil
}

func setupAndStart(spec *executorSpec) (*exec.Cmd, error) {
	if err := joinCgroup(spec.CgroupProcs); err != nil {
		return nil, err
	}
	if err := buildRoot(spec); err != nil {
		return nil, err
	}
	if spec.Hostname != "" {
		_ = syscall.Sethostname([]byte(spec.Hostname))
	}
	return startTask(spec)
}

// joinCgroup moves the executor (and so everything it starts) into the
// task's cgroup; "0" means the writing process.
func joinCgroup(procs []string) error {
	for _, f := range procs {
		if err := os.WriteFile(f, []byte("0"), 0); err != nil {
			return fmt.Errorf("join cgroup %s: %w", f, err)
		}
	}
	return nil
}

func startTask(spec *executorSpec) (*exec.Cmd, error) {
	path, err := resolveInRoot(spec.Root, spec.Command, spec.Env)
	if err != nil {
		return nil, err
	}
	stdout, err := drivers.OpenLog(spec.StdoutPath)
	if err != nil {
		return nil, fmt.Errorf("open stdout log: %w", err)
	}
	defer stdout.Close()
	stderr, err := drivers.OpenLog(spec.StderrPath)
	if err != nil {
		return nil, fmt.Errorf("open stderr log: %w", err)
	}
	defer stderr.Close()
	cmd := &exec.Cmd{Path: path, Args: append([]string{spec.Command}, spec.Args...), Env: spec.Env, Dir: "/", Stdout: stdout, Stderr: stderr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: spec.Root, Setpgid: true}
	cred, err := drivers.LookupCredential(spec.User)
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr.Credential = cred
	if err := prepareTaskDirs(spec, int(cred.Uid), int(cred.Gid)); err != nil {
		return nil, err
	}
	// The task is forked from this thread, after its bounding set and
	// no_new_privs are restricted (both are per thread and inherited).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := restrictThread(spec.Caps); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("failed to start command %q: %w", spec.Command, err)
	}
	return cmd, nil
}

// resolveInRoot finds the command as the task will see it: absolute paths
// and paths with a slash inside the chroot, bare names on the task's PATH.
func resolveInRoot(root, command string, env []string) (string, error) {
	candidates := []string{command}
	if !strings.Contains(command, "/") {
		candidates = nil
		for _, dir := range filepath.SplitList(envValue(env, "PATH", drivers.DefaultPath)) {
			candidates = append(candidates, filepath.Join(dir, command))
		}
	}
	for _, c := range candidates {
		inside := filepath.Join("/", c)
		if fi, err := os.Stat(filepath.Join(root, inside)); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return inside, nil
		}
	}
	return "", fmt.Errorf("command %q not found in the task's chroot", command)
}

func envValue(env []string, key, def string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return def
}

func forwardSignals(sigs <-chan os.Signal, pgid int) {
	for s := range sigs {
		_ = syscall.Kill(-pgid, s.(syscall.Signal))
	}
}

// reap waits for the task, also reaping the orphans that PID 1 inherits.
func reap(pid int) drivers.ExitRecord {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return drivers.ExitRecord{ExitCode: -1}
		}
		if got != pid {
			continue
		}
		if ws.Signaled() {
			return drivers.ExitRecord{ExitCode: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
		}
		return drivers.ExitRecord{ExitCode: ws.ExitStatus()}
	}
}
