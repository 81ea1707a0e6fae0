//go:build !linux

package agent

import (
	"errors"
	"os"
)

// newReplyFile: only Linux keeps replies in memory files; elsewhere they
// stay on the heap.
func newReplyFile([]byte) (*os.File, error) { return nil, errors.New("no memfd") }

func openReplyFile(*os.File) (*os.File, error) { return nil, errors.New("no memfd") }
