package docker

import (
	"context"
	"fmt"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
)

// ImageNotFoundError is a Start failure for an image not present locally.
type ImageNotFoundError struct{ Image string }

func (e *ImageNotFoundError) Error() string {
	return fmt.Sprintf("image %q not found locally; no registry is reachable", e.Image)
}

// Start implements drivers.Driver.
func (d *Driver) Start(ctx context.Context, tc *drivers.TaskConfig) (*drivers.TaskHandle, error) {
	cfg, err := DecodeTaskConfig(tc.Config)
	if err != nil {
		return nil, err
	}
	if err := checkAllocNetwork(tc); err != nil {
		return nil, err
	}
	ok, err := d.client.ImageExists(ctx, cfg.Image)
	if err != nil {
		return nil, fmt.Errorf("check image %q: %w", cfg.Image, err)
	}
	if !ok {
		return nil, &ImageNotFoundError{Image: cfg.Image}
	}
	cc, staged, err := containerConfig(tc, cfg, &d.cfg)
	if err != nil {
		return nil, err
	}
	// The runtime mounts the volumes at start, from the staging mounts.
	defer staged.Close()
	id, err := d.create(ctx, containerName(tc), cc)
	if err != nil {
		return nil, err
	}
	if err := d.client.StartContainer(ctx, id); err != nil {
		_ = d.client.RemoveContainer(context.Background(), id, true)
		return nil, fmt.Errorf("start container: %w", err)
	}
	t := &task{id: tc.ID, exit: drivers.NewExitWaiter(),
		state: taskState{ContainerID: id, StdoutPath: tc.StdoutPath, StderrPath: tc.StderrPath, StartedAt: time.Now()}}
	if err := d.tasks.Add(t.id, t); err != nil {
		_ = d.client.RemoveContainer(context.Background(), id, true)
		return nil, err
	}
	d.watch(t, time.Time{})
	return t.handle()
}

// create makes the container. A container of the same name is a leftover
// of an attempt whose handle was never persisted; it is replaced.
func (d *Driver) create(ctx context.Context, name string, cc *ContainerConfig) (string, error) {
	id, err := d.client.CreateContainer(ctx, name, cc)
	if isConflict(err) {
		if rmErr := d.client.RemoveContainer(ctx, name, true); rmErr != nil {
			return "", fmt.Errorf("remove stale container %s: %w", name, rmErr)
		}
		id, err = d.client.CreateContainer(ctx, name, cc)
	}
	if err != nil {
		return "", fmt.Errorf("create container: %w", err)
	}
	return id, nil
}
