package command

import (
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hashicorp/nomad/api"
	"golang.org/x/sys/unix"
)

// isTerminalReader reports whether r is a terminal (os.Stdin at a shell).
func isTerminalReader(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// makeRaw puts the terminal into raw mode (no echo, no line editing, no
// signals from keys: the remote terminal handles them) and returns the
// function that restores it.
func makeRaw(f *os.File) (func(), error) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, err
	}
	raw := *old
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Oflag &^= unix.OPOST
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &raw); err != nil {
		return nil, err
	}
	return func() { _ = unix.IoctlSetTermios(fd, unix.TCSETS, old) }, nil
}

// watchTerminalSize sends the terminal's size now and on every SIGWINCH.
func watchTerminalSize(f *os.File) chan api.TerminalSize {
	ch := make(chan api.TerminalSize, 1)
	send := func() {
		ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
		if err != nil {
			return
		}
		select {
		case ch <- api.TerminalSize{Height: int(ws.Row), Width: int(ws.Col)}:
		default:
		}
	}
	send()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGWINCH)
	go func() {
		for range sig {
			send()
		}
	}()
	return ch
}
