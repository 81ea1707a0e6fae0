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

// exitRecord is the supervisor's exit file.
type exitRecord struct {
	ExitCode int
	Signal   int
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
	reportSupervisorStatus(status, err)
	if err != nil {
		return 1
	}
	rec := exitOf(cmd.Wait(), cmd.ProcessState)
	if err := writeExitFile(spec.ExitFile, rec); err != nil {
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

func reportSupervisorStatus(w *os.File, err error) {
	st := supervisorStatus{}
	if err != nil {
		st.Error = err.Error()
	}
	_ = json.NewEncoder(w).Encode(st)
	w.Close()
}

// supervisorStatus is the one line the supervisor writes on the status
// pipe once the task started (or could not).
type supervisorStatus struct {
	Error string `json:",omitempty"`
}

func exitOf(waitErr error, ps *os.ProcessState) exitRecord {
	if ps == nil {
		return exitRecord{ExitCode: -1}
	}
	ws := ps.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return exitRecord{ExitCode: 128 + int(ws.Signal()), Signal: int(ws.Signal())}
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return exitRecord{ExitCode: -1}
	}
	return exitRecord{ExitCode: ws.ExitStatus()}
}

// writeExitFile writes atomically so a reader never sees half a record.
func writeExitFile(path string, rec exitRecord) error {
	b, _ := json.Marshal(rec)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
