package allocnet

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/vishvananda/netns"
)

// NetNSDir is where named namespaces are bind-mounted (as `ip netns`).
const NetNSDir = "/var/run/netns"

// NetNSPath is where an alloc's namespace is.
func NetNSPath(allocID string) string { return filepath.Join(NetNSDir, allocID) }

// createNetNS makes a fresh named namespace for the alloc (a stale one of
// the same name, left by a crash, is removed first). The namespace is
// created on a locked thread that returns to the original namespace; a
// thread that cannot is left locked, so the runtime retires it.
func createNetNS(allocID string) (string, error) {
	if exists(NetNSPath(allocID)) {
		_ = deleteNetNS(allocID)
	}
	type result struct{ err error }
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			done <- result{err}
			return
		}
		defer orig.Close()
		created, err := netns.NewNamed(allocID)
		if err == nil {
			created.Close()
		}
		if serr := netns.Set(orig); serr != nil {
			done <- result{serr} // the thread stays locked and dies with the goroutine
			return
		}
		runtime.UnlockOSThread()
		done <- result{err}
	}()
	if r := <-done; r.err != nil {
		return "", r.err
	}
	return NetNSPath(allocID), nil
}

func deleteNetNS(allocID string) error {
	if _, err := os.Stat(NetNSPath(allocID)); err != nil {
		return err
	}
	return netns.DeleteNamed(allocID)
}
