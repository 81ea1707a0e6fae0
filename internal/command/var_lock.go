package command

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

func init() { register("var lock", varLockCmd) }

// varLockCmd holds a variable's lock while a child command runs: it
// acquires the lock, renews it at half its TTL, and releases it when the
// child exits (or kills the child if a renewal fails: the lock is lost).
func varLockCmd() *cmd {
	var ttl, delay time.Duration
	var shell bool
	c := &cmd{
		Name: "var lock", Args: "<path> <command>...", MinArgs: 2, MaxArgs: -1,
		Synopsis: "Run a command while holding a variable's lock",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.DurationVar(&ttl, "ttl", 15*time.Second, "Lease of the lock; renewed at half of it.")
		fs.DurationVar(&delay, "delay", 15*time.Second, "Grace after a lost lease before another holder may take it.")
		fs.BoolVar(&shell, "shell", true, "Run the command through $SHELL (or /bin/sh).")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		v := &api.Variable{Path: args[0], Lock: &api.VariableLock{TTL: ttl.String(), LockDelay: delay.String()}}
		held, _, err := cl.Variables().AcquireLock(v, e.write())
		if err != nil {
			var conflict api.ErrCASConflict
			if errors.As(err, &conflict) {
				return errorf("variable %q is locked by another holder", args[0])
			}
			return apiError("acquiring lock", err)
		}
		fmt.Fprintf(e.stderr, "Acquired lock on %q\n", args[0])
		code, runErr := runLocked(cl, held, ttl, childCommand(args[1:], shell), e)
		if _, _, err := cl.Variables().ReleaseLock(held, e.write()); err != nil {
			fmt.Fprintf(e.stderr, "releasing lock: %v\n", err)
		}
		if runErr != nil {
			return runErr
		}
		return exitCodeOrNil(code)
	}
	return c
}

func childCommand(args []string, shell bool) *exec.Cmd {
	if !shell {
		return exec.Command(args[0], args[1:]...)
	}
	sh := os.Getenv("SHELL")
	if sh == "" {
		sh = "/bin/sh"
	}
	return exec.Command(sh, "-c", strings.Join(args, " "))
}

// runLocked runs child, renewing the lock until it exits.
func runLocked(cl *api.Client, held *api.Variable, ttl time.Duration, child *exec.Cmd, e *env) (int, error) {
	child.Stdin, child.Stdout, child.Stderr = os.Stdin, e.stdout, e.stderr
	if err := child.Start(); err != nil {
		return 1, errorf("starting command: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	renew := time.NewTicker(max(ttl/2, 100*time.Millisecond))
	defer renew.Stop()
	for {
		select {
		case err := <-done:
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				return exit.ExitCode(), nil
			}
			return 0, err
		case <-renew.C:
			if _, _, err := cl.Variables().RenewLock(held.Copy(), (&api.WriteOptions{}).WithContext(ctx)); err != nil {
				fmt.Fprintf(e.stderr, "lock lost (%v): stopping the command\n", err)
				_ = child.Process.Kill()
				<-done
				return 1, nil
			}
		}
	}
}
