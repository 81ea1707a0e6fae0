package exec

import (
	"fmt"
	"syscall"
	"testing"
)

func chroot(dir string) error { return syscall.Chroot(dir) }

func fmtSscan(t *testing.T, hex string, out *uint64) {
	t.Helper()
	if _, err := fmt.Sscanf(hex, "%x", out); err != nil {
		t.Fatalf("parse %q: %v", hex, err)
	}
}
