package rawexec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/drover-project/drover/internal/client/drivers"
)

// SupervisorArg is the first argument that makes a binary linking this
// package run the supervisor instead of its main (see init).
const SupervisorArg = "raw_exec-supervisor"

// supervisorStatusFD is the status pipe's descriptor (ExtraFiles[0]).
const supervisorStatusFD = 3

// supervisorSpec is what the driver tells the supervisor on its stdin.
type supervisorSpec struct {
	Path       string
	Args       []string
	Dir        string
	Env        []string
	Credential *syscall.Credential `json:",omitempty"`
	ExitFile   string
}

// The supervisor is the task's parent for its whole life, so its exit
// status is known even when the client that started it has restarted
// meanwhile: the supervisor writes it to the exit file, which Recover and
// Wait read. Any binary that links this package (drover, or a test
// binary) becomes the supervisor when started with SupervisorArg; the
// hook runs in init so no main or TestMain has to know about it.
func init() {
	if len(os.Args) > 1 && os.Args[1] == SupervisorArg {
		os.Exit(supervise())
	}
}

// supervise starts the task in the supervisor's own process group and
// waits for it. Signals reach the task from the driver through the group
// (Stop and Signal signal the whole group); the supervisor catches them
// so it outlives the task and records its exit. Only SIGKILL, which the
// driver sends to the group last, ends it first: then the driver that
// sent it knows why.
func supervise() int {
	sigs := make(chan os.Signal, 32)
	signal.Notify(sigs, caught...)
	go func() {
		for range sigs {
		}
	}()
	status := os.NewFile(supervisorStatusFD, "status")
	spec, err := readSupervisorSpec(os.Stdin)
	var cmd *exec.Cmd
	if err == nil {
		cmd, err = startSupervised(spec)
	}
	drivers.WriteSupervisorStatus(status, err)
	if err != nil {
		return 1
	}
	rec := exitOf(cmd.Wait(), cmd.ProcessState)
	if err := drivers.WriteExitRecord(spec.ExitFile, rec); err != nil {
		fmt.Fprintf(os.Stderr, "raw_exec supervisor: %v\n", err)
	}
	return rec.ExitCode
}

// caught are the signals the supervisor survives. SIGCHLD and SIGURG (the
// Go runtime's preemption signal) are left alone.
var caught = []os.Signal{
	syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1,
	syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGWINCH, syscall.SIGTSTP, syscall.SIGTTIN,
	syscall.SIGTTOU, syscall.SIGPIPE, syscall.SIGPROF, syscall.SIGVTALRM, syscall.SIGXCPU,
	syscall.SIGXFSZ, syscall.SIGIO, syscall.SIGABRT,
}

func readSupervisorSpec(r io.Reader) (*supervisorSpec, error) {
	var spec supervisorSpec
	if err := json.NewDecoder(r).Decode(&spec); err != nil {
		return nil, fmt.Errorf("read raw_exec supervisor spec: %w", err)
	}
	return &spec, nil
}

func startSupervised(spec *supervisorSpec) (*exec.Cmd, error) {
	cmd := &exec.Cmd{Path: spec.Path, Args: spec.Args, Dir: spec.Dir, Env: spec.Env, Stdout: os.Stdout, Stderr: os.Stderr}
	if spec.Credential != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: spec.Credential}
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("failed to start command %q: %w", spec.Path, err)
	}
	return cmd, nil
}

func exitOf(waitErr error, ps *os.ProcessState) drivers.ExitRecord {
	if ps == nil {
		return drivers.ExitRecord{ExitCode: -1}
	}
	ws := ps.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return drivers.ExitRecord{ExitCode: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return drivers.ExitRecord{ExitCode: -1}
	}
	return drivers.ExitRecord{ExitCode: ws.ExitStatus()}
}
