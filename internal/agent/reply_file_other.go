//go:build !linux

package agent

import (
	"errors"
	"io"
	"os"
)

// newReplyFile: only Linux keeps replies in memory files; elsewhere they
// stay on the heap.
func newReplyFile(func(io.Writer) error) (*os.File, error) { return nil, errors.New("no memfd") }

func openReplyFile(*os.File) (*os.File, error) { return nil, errors.New("no memfd") }
