package command

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair and returns its terminal end.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the terminal end: %v", err)
	}
	t.Cleanup(func() { slave.Close() })
	return slave
}

// TestMakeRaw_RestoresTheTerminal: alloc exec -t puts the terminal into raw
// mode (no echo, no line editing, no signal keys) for the session and the
// returned function puts back exactly what was there.
func TestMakeRaw_RestoresTheTerminal(t *testing.T) {
	tty := openPTY(t)
	if !isTerminalReader(tty) {
		t.Fatal("a pty is not seen as a terminal")
	}
	before, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	restore, err := makeRaw(tty)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if raw.Lflag&(unix.ECHO|unix.ICANON|unix.ISIG) != 0 || raw.Oflag&unix.OPOST != 0 {
		t.Errorf("not raw: lflag %#x oflag %#x", raw.Lflag, raw.Oflag)
	}
	restore()
	after, _ := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if *after != *before {
		t.Errorf("terminal not restored:\nbefore %+v\nafter  %+v", before, after)
	}
}
