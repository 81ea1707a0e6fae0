package exec

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/testutil"
)

// TestExecTask_EntersTheTask runs commands in a running exec task: they
// see the task's chroot (its local/ dir at /local), its PID namespace,
// its environment, and their exit codes and stdin come through.
func TestExecTask_EntersTheTask(t *testing.T) {
	d := newDriver(t)
	task := newTask(t, "web", sh("echo marker > /local/marker; sleep 300"))
	task.Env = map[string]string{"GREETING": "from-the-task"}
	if _, err := d.Start(context.Background(), task); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Destroy(task.ID, true) })

	exec := func(stdin string, cmd ...string) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var out bytes.Buffer
		code, err := d.ExecTask(ctx, task.ID, &drivers.ExecRequest{Command: cmd, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &out})
		if err != nil {
			t.Fatalf("exec %v: %v", cmd, err)
		}
		return code, out.String()
	}
	// The task writes its marker once it runs.
	testutil.WaitFor(t, 20*time.Second, "the task's marker inside the task", func() (bool, string) {
		code, out := exec("", "/bin/cat", "/local/marker")
		return code == 0 && out == "marker\n", fmt.Sprintf("code %d, %q", code, out)
	})
	if code, out := exec("", "/bin/sh", "-c", "echo $GREETING"); code != 0 || out != "from-the-task\n" {
		t.Errorf("env: code %d, out %q", code, out)
	}
	// PID 1 of the task's namespace is its executor, so the exec'd
	// command sees few processes, not the host's.
	if code, out := exec("", "/bin/sh", "-c", "ls /proc | grep -c '^[0-9]'"); code != 0 || strings.TrimSpace(out) == "" || len(strings.TrimSpace(out)) > 2 {
		t.Errorf("pid namespace: code %d, %q processes visible", code, out)
	}
	if code, _ := exec("", "/bin/sh", "-c", "exit 4"); code != 4 {
		t.Errorf("exit code %d, want 4", code)
	}
	if code, out := exec("via stdin\n", "/bin/cat"); code != 0 || out != "via stdin\n" {
		t.Errorf("stdin: code %d, out %q", code, out)
	}
	var tty bytes.Buffer
	code, err := d.ExecTask(context.Background(), task.ID, &drivers.ExecRequest{
		Command: []string{"/bin/sh", "-c", "test -t 1 && echo on-a-terminal"}, TTY: true, Stdout: &tty, Stderr: &tty,
	})
	if err != nil || code != 0 || tty.String() != "on-a-terminal\r\n" {
		t.Errorf("tty: code %d err %v out %q", code, err, tty.String())
	}
}
