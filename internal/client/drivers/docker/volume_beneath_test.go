package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"golang.org/x/sys/unix"
)

// volumeTree is an alloc dir with a task dir "web" and, outside it, a host
// dir holding a file no task may see.
func volumeTree(t *testing.T) (alloc, host string) {
	t.Helper()
	alloc, host = t.TempDir(), t.TempDir()
	for _, d := range []string{"web/local/data", "alloc/shared"} {
		if err := os.MkdirAll(filepath.Join(alloc, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.WriteFile(filepath.Join(host, "host-secret"), nil, 0o600))
	must(t, os.WriteFile(filepath.Join(alloc, "web/local/file"), nil, 0o600))
	must(t, os.Symlink(host, filepath.Join(alloc, "web/local/out")))
	must(t, os.Symlink("/", filepath.Join(alloc, "web/local/root")))
	must(t, os.Symlink("../../alloc/shared", filepath.Join(alloc, "web/local/in")))
	must(t, unix.Mkfifo(filepath.Join(alloc, "web/local/fifo"), 0o600))
	return alloc, host
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Both resolvers: openat2 follows a link that stays inside, the fallback
// walk refuses every link; neither leaves the alloc dir or creates
// anything outside it.
func TestOpenVolumeBeneath(t *testing.T) {
	const escapes, refused, ok = "escapes", "refused", ""
	cases := []struct {
		rel, openat2, walk string
		want               string // the path opened, relative to the alloc dir
	}{
		{"web/local/data", ok, ok, "web/local/data"},
		{"web/local/file", ok, ok, "web/local/file"},
		{"web/../alloc/shared", ok, ok, "alloc/shared"},
		{"web/local/new/deeper", ok, ok, "web/local/new/deeper"},
		{"web/local/in", ok, escapes, "alloc/shared"},
		{"web/../../etc", escapes, escapes, ""},
		{"/etc", escapes, escapes, ""},
		{"web/local/out", escapes, escapes, ""},
		{"web/local/root/etc", escapes, refused, ""},
		{"web/local/out/created", escapes, refused, ""},
		{"web/local/fifo", refused, refused, ""},
	}
	openers := map[string]beneathOpener{"openat2": openat2PathBeneath, "walk": walkPathNoSymlinks}
	for name, open := range openers {
		for _, tc := range cases {
			t.Run(name+"/"+tc.rel, func(t *testing.T) {
				alloc, host := volumeTree(t)
				want := tc.openat2
				if name == "walk" {
					want = tc.walk
				}
				f, err := openVolumeBeneath(alloc, tc.rel, open)
				if _, statErr := os.Stat(filepath.Join(host, "created")); statErr == nil {
					t.Fatal("a directory was created outside the alloc dir")
				}
				checkOpened(t, alloc, f, err, want, tc.want)
			})
		}
	}
}

func checkOpened(t *testing.T, alloc string, f *os.File, err error, want, path string) {
	t.Helper()
	switch want {
	case "escapes":
		if !errors.Is(err, errEscapesAllocDir) {
			t.Fatalf("got %v, want the escape refused", err)
		}
		return
	case "refused":
		if err == nil {
			f.Close()
			t.Fatal("opened, want refused")
		}
		return
	}
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	defer f.Close()
	got, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	realAlloc, _ := filepath.EvalSymlinks(alloc)
	if got != filepath.Join(realAlloc, path) {
		t.Fatalf("opened %s, want %s", got, filepath.Join(realAlloc, path))
	}
}

// The staging mount shows the opened directory (or file), and Close
// leaves the alloc dir as it was.
func TestStageVolume(t *testing.T) {
	alloc, _ := volumeTree(t)
	for _, rel := range []string{"web/local/data", "web/local/file"} {
		f, err := openVolumeBeneath(alloc, rel, openat2PathBeneath)
		must(t, err)
		staging, err := stageVolume(alloc, f)
		f.Close()
		must(t, err)
		var viaStaging, original unix.Stat_t
		must(t, unix.Stat(filepath.Join(staging, "v"), &viaStaging))
		must(t, unix.Stat(filepath.Join(alloc, rel), &original))
		if viaStaging.Ino != original.Ino || viaStaging.Dev != original.Dev {
			t.Fatalf("%s: the staging mount is not the opened %s", staging, rel)
		}
		stagedVolumes{staging}.Close()
		if _, err := os.Stat(staging); !os.IsNotExist(err) {
			t.Fatalf("staging dir left behind: %v", err)
		}
		if _, err := os.Stat(filepath.Join(alloc, rel)); err != nil {
			t.Fatalf("the source went with the staging dir: %v", err)
		}
	}
}

// A staging dir left mounted by a client that died mid-start is removed
// by the next staging in its alloc dir; a live one is not.
func TestStageVolume_RemovesLeftovers(t *testing.T) {
	alloc, _ := volumeTree(t)
	open := func(rel string) *os.File {
		f, err := openVolumeBeneath(alloc, rel, openat2PathBeneath)
		must(t, err)
		t.Cleanup(func() { f.Close() })
		return f
	}
	leftover, err := stageVolume(alloc, open("web/local/data"))
	must(t, err)
	liveStaging.Lock()
	delete(liveStaging.dirs, leftover) // as after a restart: not this process's
	liveStaging.Unlock()
	live, err := stageVolume(alloc, open("alloc/shared"))
	must(t, err)
	defer stagedVolumes{live}.Close()
	again, err := stageVolume(alloc, open("web/local/file"))
	must(t, err)
	defer stagedVolumes{again}.Close()
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Fatalf("the leftover staging dir is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(live, "v")); err != nil {
		t.Fatalf("a live staging dir was removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(alloc, "web/local/data")); err != nil {
		t.Fatalf("removing the leftover touched its source: %v", err)
	}
}

// A task swaps local/x between a directory of its own and a symlink to a
// host dir, as fast as it can, while containers mount local/x. Each start
// is refused or mounts the task's directory; none shows the host's file.
// (Checking the path and handing Docker the path lost this race.)
func TestStart_RelativeVolumeSymlinkSwapRace(t *testing.T) {
	requireImage(t)
	d := newDriver(t)
	const wantMounted, maxAttempts = 8, 60
	var mounted, refusedStarts int
	for attempt := 0; attempt < maxAttempts && mounted < wantMounted; attempt++ {
		task := newTask(t, "web", map[string]any{"image": testImage, "args": []any{"ls", "/data"}, "volumes": []any{"local/x:/data"}})
		stop := swapDirAndLink(t, task.TaskDir.LocalDir)
		_, err := d.Start(context.Background(), task)
		swaps := stop()
		var ce *drivers.ConfigError
		if errors.As(err, &ce) && ce.Field == "volumes" {
			refusedStarts++
			continue
		}
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		t.Cleanup(func() { _ = d.Destroy(task.ID, true) })
		waitExit(t, d, task.ID, 30*time.Second)
		out, _ := os.ReadFile(task.StdoutPath)
		if strings.Contains(string(out), "host-secret") {
			t.Fatalf("attempt %d (%d swaps): the container saw the host dir: %q", attempt, swaps, out)
		}
		if strings.TrimSpace(string(out)) != "inside" {
			t.Fatalf("attempt %d: /data lists %q, want the task's own dir", attempt, out)
		}
		mounted++
	}
	t.Logf("%d mounted, %d refused", mounted, refusedStarts)
	if mounted == 0 {
		t.Fatal("no start mounted the volume")
	}
}

// swapDirAndLink makes dir/x a directory holding "inside" and dir/y a
// symlink to a host dir holding "host-secret", then exchanges them
// atomically in a loop until the returned stop is called.
func swapDirAndLink(t *testing.T, dir string) (stop func() int) {
	t.Helper()
	host := t.TempDir()
	must(t, os.WriteFile(filepath.Join(host, "host-secret"), nil, 0o600))
	x, y := filepath.Join(dir, "x"), filepath.Join(dir, "y")
	must(t, os.Mkdir(x, 0o755))
	must(t, os.WriteFile(filepath.Join(x, "inside"), nil, 0o600))
	must(t, os.Symlink(host, y))
	var done atomic.Bool
	var swaps int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !done.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, x, unix.AT_FDCWD, y, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("swap: %v", err)
				return
			}
			swaps++
		}
	}()
	return func() int {
		done.Store(true)
		wg.Wait()
		return swaps
	}
}
