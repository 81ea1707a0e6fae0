package drivers

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// TerminalSize is an exec session's terminal, in character cells.
type TerminalSize struct {
	Height, Width int
}

// openPTY creates a pseudo-terminal pair.
func openPTY() (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open a terminal: %w", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("unlock the terminal: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("name the terminal: %w", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("open the terminal's other end: %w", err)
	}
	return m, s, nil
}

func resizePTY(m *os.File, sz TerminalSize) {
	if sz.Height > 0 && sz.Width > 0 {
		_ = unix.IoctlSetWinsize(int(m.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(sz.Height), Col: uint16(sz.Width)})
	}
}

// applyPendingSizes applies the sizes already sent, so the command
// starts with the caller's terminal size.
func applyPendingSizes(m *os.File, sizes <-chan TerminalSize) {
	for {
		select {
		case sz, ok := <-sizes:
			if !ok {
				return
			}
			resizePTY(m, sz)
		default:
			return
		}
	}
}

// runWithPTY runs cmd as the leader of a new session whose controlling
// terminal is a fresh pty: stdin goes to the terminal, everything it
// prints (stdout and stderr alike, as on a terminal) to req.Stdout.
func runWithPTY(cmd *exec.Cmd, req *ExecRequest, start func(*exec.Cmd) error) error {
	m, s, err := openPTY()
	if err != nil {
		return err
	}
	defer m.Close()
	applyPendingSizes(m, req.Resize)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s, s, s
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Ctty = true, true, 0
	if err := start(cmd); err != nil {
		s.Close()
		return err
	}
	s.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case sz, ok := <-req.Resize:
				if !ok {
					return
				}
				resizePTY(m, sz)
			case <-done:
				return
			}
		}
	}()
	if req.Stdin != nil {
		go func() { _, _ = io.Copy(m, req.Stdin) }()
	}
	// The master reads EIO once every holder of the terminal is gone.
	if _, err := io.Copy(req.Stdout, m); err != nil && !errors.Is(err, syscall.EIO) {
		_ = cmd.Process.Kill()
	}
	return cmd.Wait()
}
