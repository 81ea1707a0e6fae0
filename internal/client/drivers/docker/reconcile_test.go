package docker

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/moby/moby/client"
)

// TestReconcileDangling: after a client restart, a container whose alloc
// dir is gone and whose task no one re-attached to is removed (only
// listed under dry_run); one whose task was recovered, or whose alloc is
// still on the node, stays.
func TestReconcileDangling(t *testing.T) {
	requireImage(t)
	c := requireDaemon(t)
	d1 := newDriver(t)
	gone := newTask(t, "gone", map[string]any{"image": testImage})
	kept := newTask(t, "kept", map[string]any{"image": testImage})
	live := newTask(t, "live", map[string]any{"image": testImage})
	start(t, d1, gone)
	hKept := start(t, d1, kept)
	start(t, d1, live)
	for _, task := range []*drivers.TaskConfig{gone, kept} {
		must(t, os.RemoveAll(filepath.Dir(task.TaskDir.AllocDir)))
	}
	idOf := func(task *drivers.TaskConfig) string {
		res, err := c.ContainerInspect(context.Background(), containerName(task), client.ContainerInspectOptions{})
		must(t, err)
		return res.Container.ID
	}
	goneID, keptID, liveID := idOf(gone), idOf(kept), idOf(live)
	restarted := func(extra map[string]any) *Driver {
		dc := map[string]any{"creation_grace": "1ns"}
		for k, v := range extra {
			dc[k] = v
		}
		d, err := New(map[string]any{"gc": []map[string]any{{"dangling_containers": []map[string]any{dc}}}}, drivers.Env{})
		must(t, err)
		return d.(*Driver)
	}

	dry := restarted(map[string]any{"dry_run": true})
	must(t, dry.Recover(hKept))
	listed, err := dry.reconcileDangling(context.Background())
	must(t, err)
	if !slices.Contains(listed, goneID) || slices.Contains(listed, keptID) || slices.Contains(listed, liveID) {
		t.Fatalf("dry run listed %v, want %s only of ours", listed, goneID)
	}
	if _, err := c.ContainerInspect(context.Background(), goneID, client.ContainerInspectOptions{}); err != nil {
		t.Fatalf("dry run removed the container: %v", err)
	}

	d2 := restarted(nil)
	must(t, d2.Recover(hKept))
	removed, err := d2.reconcileDangling(context.Background())
	must(t, err)
	if !slices.Contains(removed, goneID) {
		t.Fatalf("removed %v, want %s", removed, goneID)
	}
	if _, err := c.ContainerInspect(context.Background(), goneID, client.ContainerInspectOptions{}); !IsNotFound(err) {
		t.Fatalf("dangling container still there: %v", err)
	}
	for _, id := range []string{keptID, liveID} {
		if _, err := c.ContainerInspect(context.Background(), id, client.ContainerInspectOptions{}); err != nil {
			t.Fatalf("container %s removed: %v", id, err)
		}
	}
	must(t, d2.Destroy(kept.ID, true))
}

// TestGCContainerFalse: gc { container = false } leaves a destroyed
// task's container, stopped, for inspection; the default removes it.
func TestGCContainerFalse(t *testing.T) {
	requireImage(t)
	c := requireDaemon(t)
	for _, keep := range []bool{false, true} {
		d, err := New(map[string]any{"gc": []map[string]any{{"container": !keep}}}, drivers.Env{})
		must(t, err)
		task := newTask(t, "keep", map[string]any{"image": testImage})
		start(t, d, task)
		res, err := c.ContainerInspect(context.Background(), containerName(task), client.ContainerInspectOptions{})
		must(t, err)
		must(t, d.Destroy(task.ID, true))
		_, err = c.ContainerInspect(context.Background(), res.Container.ID, client.ContainerInspectOptions{})
		if !keep {
			if !IsNotFound(err) {
				t.Fatalf("default gc: container still there: %v", err)
			}
			continue
		}
		testutil.WaitFor(t, 30*time.Second, "the kept container to stop", func() (bool, string) {
			after, err := c.ContainerInspect(context.Background(), res.Container.ID, client.ContainerInspectOptions{})
			if err != nil {
				t.Fatalf("container = false: container gone: %v", err)
			}
			return !after.Container.State.Running, string(after.Container.State.Status)
		})
		_, _ = c.ContainerRemove(context.Background(), res.Container.ID, client.ContainerRemoveOptions{Force: true})
	}
}
