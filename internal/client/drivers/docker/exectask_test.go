package docker

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
)

// TestExecTask runs a command inside a running container through the
// Engine API's exec: output split by stream, the exit code, a clean end
// when stdin is given, and a failing exit for a missing binary.
func TestExecTask(t *testing.T) {
	requireImage(t)
	d := newDriver(t)
	task, _, _ := serve(t, d)
	execer := d.(drivers.Execer)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code, err := execer.ExecTask(ctx, task.ID, &drivers.ExecRequest{
		Command: []string{"/server", "exit", "3", "hi", "there"},
		Stdin:   strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	if code != 3 || stdout.String() != "hi there\n" || stderr.String() != "to stderr\n" {
		t.Fatalf("exec: code %d stdout %q stderr %q, want 3, hi there, to stderr", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	code, err = execer.ExecTask(ctx, task.ID, &drivers.ExecRequest{
		Command: []string{"/server", "exit", "0", "hi"}, TTY: true, Stdout: &stdout, Stderr: &stdout,
	})
	if err != nil || code != 0 || stdout.String() != "hi\r\nto stderr\r\n" {
		t.Fatalf("exec -t: code %d err %v out %q, want both streams on the terminal", code, err, stdout.String())
	}
	stdout.Reset()
	code, err = execer.ExecTask(ctx, task.ID, &drivers.ExecRequest{
		Command: []string{"/no/such/binary"}, Stdout: &stdout, Stderr: &stdout,
	})
	if err != nil || code == 0 {
		t.Fatalf("missing binary: code %d err %v (%q), want a non-zero exit", code, err, stdout.String())
	}
}
