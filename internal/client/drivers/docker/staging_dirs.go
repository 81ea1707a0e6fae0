package docker

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// liveStaging is the staging dirs (see volume_beneath.go) this process
// made and has not removed yet. Any other one in an alloc dir was left by
// a client that died between staging a volume and removing it; its mount
// would make removing the alloc dir fail, so the next staging in that
// alloc dir removes it first.
var liveStaging = struct {
	sync.Mutex
	dirs map[string]struct{}
}{dirs: map[string]struct{}{}}

// newStagingDir removes the alloc dir's leftover staging dirs and makes
// a fresh one (0700, a random name created exclusively), marked live.
func newStagingDir(allocRoot string) (string, error) {
	liveStaging.Lock()
	defer liveStaging.Unlock()
	entries, _ := os.ReadDir(allocRoot)
	for _, e := range entries {
		dir := filepath.Join(allocRoot, e.Name())
		if _, live := liveStaging.dirs[dir]; strings.HasPrefix(e.Name(), stagingPrefix) && !live {
			removeStagingDir(dir)
		}
	}
	dir, err := os.MkdirTemp(allocRoot, stagingPrefix)
	if err == nil {
		liveStaging.dirs[dir] = struct{}{}
	}
	return dir, err
}

// releaseStagingDir unmounts and removes a staging dir this process made.
func releaseStagingDir(dir string) {
	liveStaging.Lock()
	defer liveStaging.Unlock()
	removeStagingDir(dir)
	delete(liveStaging.dirs, dir)
}

// removeStagingDir unmounts dir/v and removes both. Remove, never
// RemoveAll: should the unmount fail, the files below stay untouched.
func removeStagingDir(dir string) {
	target := filepath.Join(dir, "v")
	_ = unix.Unmount(target, unix.MNT_DETACH)
	_ = os.Remove(target)
	_ = os.Remove(dir)
}
