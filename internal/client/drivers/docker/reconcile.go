package docker

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/moby/moby/client"
)

// LabelAllocDir is the host path of the container's alloc dir; the
// reconciler takes its absence to mean the alloc is gone.
const LabelAllocDir = "com.drover.alloc_dir"

// tracked is the container IDs of the driver's tasks.
type tracked struct {
	mu  sync.Mutex
	ids map[string]struct{}
}

func (t *tracked) add(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ids == nil {
		t.ids = map[string]struct{}{}
	}
	t.ids[id] = struct{}{}
}

func (t *tracked) remove(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.ids, id)
}

func (t *tracked) has(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.ids[id]
	return ok
}

// reconcileLoop sweeps for dangling containers every gc
// dangling_containers period, the first sweep one period after start so
// a restarted client has re-attached to its tasks by then.
func (d *Driver) reconcileLoop() {
	for {
		<-d.clock.After(d.cfg.GC.DanglingContainers.Period)
		if _, err := d.reconcileDangling(context.Background()); err != nil {
			d.logger.Warn("dangling container sweep failed", "error", err)
		}
	}
}

// reconcileDangling removes the containers this driver made whose task
// it does not track and whose alloc dir is gone (the alloc was collected
// while the client was down), once they are older than creation_grace.
// With dry_run it only logs them. It returns the containers it removed
// (or would have).
func (d *Driver) reconcileDangling(ctx context.Context) ([]string, error) {
	list, err := d.client.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", LabelAllocID)})
	if err != nil {
		return nil, err
	}
	dc := d.cfg.GC.DanglingContainers
	var out []string
	for _, c := range list.Items {
		dir := c.Labels[LabelAllocDir]
		if d.containers.has(c.ID) || dir == "" || d.clock.Now().Sub(time.Unix(c.Created, 0)) < dc.CreationGrace {
			continue
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			continue // the alloc is still on this node
		}
		out = append(out, c.ID)
		if dc.DryRun {
			d.logger.Info("dangling container (dry run, kept)", "container", c.ID, "alloc_id", c.Labels[LabelAllocID])
			continue
		}
		if _, err := d.client.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !IsNotFound(err) {
			d.logger.Warn("remove dangling container", "container", c.ID, "error", err)
			continue
		}
		d.logger.Info("removed dangling container", "container", c.ID, "alloc_id", c.Labels[LabelAllocID])
	}
	return out, nil
}
