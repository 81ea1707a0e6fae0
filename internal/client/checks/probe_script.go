package checks

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ExecFunc runs cmd inside the named running task (through its driver's
// exec, as `alloc exec` does) and returns its exit code and combined
// output; an error means it could not be run at all.
type ExecFunc func(ctx context.Context, task string, cmd []string) (exitCode int, output string, err error)

// probeScript runs a script check's command in its task: exit 0 passes,
// 1 warns, anything else (or a timeout) fails, as Nomad documents.
func probeScript(ctx context.Context, exec ExecFunc, c Check) outcome {
	if c.Command == "" {
		return outcome{output: "script check has no command"}
	}
	if c.InTask == "" {
		return outcome{output: "script check of a group service needs `task`"}
	}
	if exec == nil {
		return outcome{output: "this client cannot exec into tasks"}
	}
	code, out, err := exec(ctx, c.InTask, append([]string{c.Command}, c.Args...))
	out = truncate(strings.TrimSpace(out))
	switch {
	case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		return outcome{output: fmt.Sprintf("script check timed out after %v", c.Timeout)}
	case err != nil:
		return outcome{output: "script check: " + err.Error()}
	case code == 0:
		return outcome{passing: true, output: out}
	case code == 1:
		return outcome{warning: true, output: out}
	}
	return outcome{output: fmt.Sprintf("exit code %d: %s", code, out)}
}

// truncate keeps the first MaxOutputBytes of a check's output.
func truncate(s string) string {
	if len(s) > MaxOutputBytes {
		return s[:MaxOutputBytes]
	}
	return s
}
