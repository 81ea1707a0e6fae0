package drivers

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestRunExec_TTY: with TTY the command runs on a terminal of the size
// the caller sent, and its stderr comes out with stdout.
func TestRunExec_TTY(t *testing.T) {
	sizes := make(chan TerminalSize, 1)
	sizes <- TerminalSize{Height: 30, Width: 100}
	var out bytes.Buffer
	req := &ExecRequest{Command: []string{"/bin/sh"}, TTY: true, Resize: sizes, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out}
	code, err := RunExec(exec.Command("/bin/sh", "-c", "test -t 0 && stty size && echo err >&2; exit 5"), req)
	if err != nil {
		t.Fatal(err)
	}
	if code != 5 || out.String() != "30 100\r\nerr\r\n" {
		t.Fatalf("code %d out %q, want 5 and the size then err on the terminal", code, out.String())
	}
}
