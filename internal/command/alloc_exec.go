package command

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/hashicorp/nomad/api"
)

func init() { register("alloc exec", allocExecCmd) }

func allocExecCmd() *cmd {
	var task, escape string
	var jobFlag bool
	var interactive, tty switchFlag
	c := &cmd{
		Name: "alloc exec", Args: "<alloc> <command> [<args>...]", MinArgs: 1, MaxArgs: -1,
		Synopsis: "Execute commands in task",
		Help: "Runs a command inside a running task of the allocation, over the agent's exec websocket, and exits " +
			"with the command's exit code. With -job the first argument is a job ID and a running allocation " +
			"of it is chosen. With -t stdin is put into raw mode for the session and restored on exit; with " +
			"-t, the escape character followed by '.' at the start of a line ends the session (-e none turns " +
			"that off). Needs alloc-exec (and alloc-node-exec for drivers without isolation) in the namespace.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&task, "task", "", "The task to run the command in (may be omitted when the allocation has one).")
		fs.BoolVar(&jobFlag, "job", false, "Treat the first argument as a job ID and pick one of its running allocations.")
		fs.Var(&interactive, "i", "Pass stdin to the command (default true).")
		fs.Var(&tty, "t", "Allocate a pseudo-terminal (default: when stdin is a terminal).")
		fs.StringVar(&escape, "e", "~", "The escape character for a terminal session, or \"none\".")
	}
	c.Run = func(e *env, args []string) error {
		if len(args) < 2 {
			return errorf("alloc exec needs a command to run after the allocation")
		}
		if escape != "none" && len(escape) != 1 {
			return errorf("-e takes one character or \"none\", not %q", escape)
		}
		var a *api.Allocation
		var err error
		if jobFlag {
			a, err = e.firstRunningAllocOf(args[0])
		} else {
			a, err = e.fetchAlloc(args[0])
		}
		if err != nil {
			return err
		}
		if task == "" {
			if task, err = onlyTask(a); err != nil {
				return err
			}
		}
		stdinTTY := isTerminalReader(e.stdin)
		useTTY := tty.or(stdinTTY)
		var stdin io.Reader = bytes.NewReader(nil)
		if interactive.or(true) {
			stdin = e.stdin
		}
		var sizes chan api.TerminalSize
		if useTTY && stdinTTY {
			restore, err := makeRaw(e.stdin.(*os.File))
			if err != nil {
				return errorf("putting the terminal into raw mode: %v", err)
			}
			defer restore()
			sizes = watchTerminalSize(e.stdin.(*os.File))
		}
		if useTTY && escape != "none" {
			stdin = &escapeReader{r: stdin, esc: escape[0], lineStart: true}
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		cl, _ := e.api()
		code, err := cl.Allocations().Exec(ctx, a, task, useTTY, args[1:], stdin, e.stdout, e.stderr, sizes, e.query())
		if err != nil {
			return apiError("executing in allocation "+a.ID, err)
		}
		return exitCodeOrNil(code)
	}
	return c
}

// firstRunningAllocOf picks a running allocation of the job (the most
// recently modified one, for a stable choice).
func (e *env) firstRunningAllocOf(jobPrefix string) (*api.Allocation, error) {
	jobID, err := e.resolveJob(jobPrefix)
	if err != nil {
		return nil, err
	}
	cl, _ := e.api()
	stubs, _, err := cl.Jobs().Allocations(jobID, false, e.query())
	if err != nil {
		return nil, apiError("listing allocations of job "+jobID, err)
	}
	sort.Slice(stubs, func(i, j int) bool { return stubs[i].ModifyIndex > stubs[j].ModifyIndex })
	for _, s := range stubs {
		if s.ClientStatus == api.AllocClientStatusRunning && s.DesiredStatus == api.AllocDesiredStatusRun {
			return e.fetchAlloc(s.ID)
		}
	}
	return nil, errorf("job %q has no running allocation", jobID)
}

// escapeReader ends the input when the escape character and '.' come at
// the start of a line (after a newline or carriage return), as ssh does;
// the escape character twice sends it once.
type escapeReader struct {
	r         io.Reader
	esc       byte
	lineStart bool
	pending   bool // saw the escape character at a line start
	done      bool
}

func (r *escapeReader) Read(p []byte) (int, error) {
	if r.done {
		return 0, io.EOF
	}
	buf := make([]byte, len(p))
	n, err := r.r.Read(buf)
	out := p[:0]
	for _, b := range buf[:n] {
		switch {
		case r.pending:
			r.pending = false
			if b == '.' {
				r.done = true
				return len(out), nil
			}
			if b != r.esc {
				out = append(out, r.esc)
			}
			out = append(out, b)
		case r.lineStart && b == r.esc:
			r.pending = true
			continue
		default:
			out = append(out, b)
		}
		r.lineStart = b == '\n' || b == '\r'
	}
	return len(out), err
}
