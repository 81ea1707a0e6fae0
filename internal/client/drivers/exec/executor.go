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

	"golang.org/x/sys/unix"

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
	var l *launch
	if err == nil {
		cmd, l, err = setupAndStart(spec)
	}
	drivers.WriteSupervisorStatus(status, err)
	if err != nil {
		return 1
	}
	go forwardSignals(sigs, cmd.Process.Pid)
	rec := reap(cmd.Process.Pid)
	if err := drivers.WriteExitRecord(l.exitFile(spec), rec); err != nil {
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

func setupAndStart(spec *executorSpec) (*exec.Cmd, *launch, error) {
	// Every step below runs on this thread: the task is forked from it
	// after its cgroup namespace, bounding set and no_new_privs are set,
	// all of which are per thread.
	runtime.LockOSThread()
	// Not dumpable: a task process cannot open the executor's /proc
	// entries (its fds, which lead to host paths), root or not.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return nil, nil, fmt.Errorf("set non-dumpable: %w", err)
	}
	if err := joinCgroup(spec.CgroupProcs); err != nil {
		return nil, nil, err
	}
	// A cgroup namespace rooted at the task's cgroup: the task's
	// /proc/self/cgroup says "/" rather than the host's layout.
	if err := unix.Unshare(unix.CLONE_NEWCGROUP); err != nil && !errors.Is(err, unix.EINVAL) {
		return nil, nil, fmt.Errorf("unshare cgroup namespace: %w", err)
	}
	// Everything that needs the host's filesystem happens before
	// pivot_root takes it away.
	l, err := prepareLaunch(spec)
	if err != nil {
		return nil, nil, err
	}
	defer l.close()
	if err := buildRoot(spec); err != nil {
		return nil, nil, err
	}
	if spec.Hostname != "" {
		_ = syscall.Sethostname([]byte(spec.Hostname))
	}
	cmd, err := startTask(spec, l)
	if err != nil {
		return nil, nil, err
	}
	return cmd, l, nil
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

// launch is what the executor takes from the host before pivot_root:
// the task's log files, its credential and a handle on the exit file's
// directory; then (after it) the command's path inside the new root.
type launch struct {
	path           string
	stdout, stderr *os.File
	cred           *syscall.Credential
	exitDir        *os.File
}

func (l *launch) close() {
	for _, f := range []*os.File{l.stdout, l.stderr} {
		if f != nil {
			f.Close()
		}
	}
}

// exitFile is the exit file's path once the host is gone: through the
// directory descriptor the executor holds (PID 1 of the task's
// namespace, so /proc/self is in the task's /proc).
func (l *launch) exitFile(spec *executorSpec) string {
	return fmt.Sprintf("/proc/self/fd/%d/%s", l.exitDir.Fd(), filepath.Base(spec.ExitFile))
}

func prepareLaunch(spec *executorSpec) (*launch, error) {
	l := &launch{}
	var err error
	if l.stdout, err = drivers.OpenLog(spec.StdoutPath); err != nil {
		return nil, fmt.Errorf("open stdout log: %w", err)
	}
	if l.stderr, err = drivers.OpenLog(spec.StderrPath); err != nil {
		l.close()
		return nil, fmt.Errorf("open stderr log: %w", err)
	}
	if l.cred, err = drivers.LookupCredential(spec.User); err != nil {
		l.close()
		return nil, err
	}
	if err := prepareTaskDirs(spec, int(l.cred.Uid), int(l.cred.Gid)); err != nil {
		l.close()
		return nil, err
	}
	if l.exitDir, err = os.Open(filepath.Dir(spec.ExitFile)); err != nil {
		l.close()
		return nil, fmt.Errorf("open exit file dir: %w", err)
	}
	return l, nil
}

func startTask(spec *executorSpec, l *launch) (*exec.Cmd, error) {
	path, err := resolveInRoot("/", spec.Command, spec.Env)
	if err != nil {
		return nil, err
	}
	l.path = path
	cmd := &exec.Cmd{Path: l.path, Args: append([]string{spec.Command}, spec.Args...), Env: spec.Env, Dir: "/", Stdout: l.stdout, Stderr: l.stderr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: l.cred}
	// The task is forked from this (locked) thread, after its bounding
	// set and no_new_privs are restricted (both are per thread and
	// inherited).
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
