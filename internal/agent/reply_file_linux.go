//go:build linux

package agent

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// newReplyFile keeps what write writes in an anonymous memory file
// (memfd), from which a reply is sent with sendfile(2): the kernel hands
// the file's pages to the socket instead of copying them from the heap
// on every request.
func newReplyFile(write func(io.Writer) error) (*os.File, error) {
	fd, err := unix.MemfdCreate("drover-reply", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "drover-reply")
	if err := write(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// openReplyFile opens f again, with an offset of its own (sendfile
// reads from and moves the file offset, and requests share f).
func openReplyFile(f *os.File) (*os.File, error) {
	return os.Open(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
}
