package docker

import (
	"context"
	"fmt"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/moby/moby/client"
)

// Start implements drivers.Driver: it makes the image present (pulling
// it as Nomad does, see ensureImage), creates the container and starts it.
func (d *Driver) Start(ctx context.Context, tc *drivers.TaskConfig) (*drivers.TaskHandle, error) {
	cfg, err := DecodeTaskConfig(tc.Config)
	if err != nil {
		return nil, err
	}
	if err := checkAllocNetwork(tc); err != nil {
		return nil, err
	}
	// Refuse what the client does not allow before pulling anything.
	if err := checkIsolation(cfg, &d.cfg); err != nil {
		return nil, err
	}
	imageID, err := d.ensureImage(ctx, tc, cfg)
	if err != nil {
		return nil, err
	}
	d.images.acquire(imageID, tc.ID)
	started := false
	defer func() {
		if !started {
			d.images.release(imageID, tc.ID)
		}
	}()
	spec, staged, err := containerConfig(tc, cfg, &d.cfg)
	if err != nil {
		return nil, err
	}
	// The runtime mounts the volumes at start, from the staging mounts.
	defer staged.Close()
	id, err := d.create(ctx, containerName(tc), spec)
	if err != nil {
		return nil, err
	}
	if _, err := d.client.ContainerStart(ctx, id, client.ContainerStartOptions{}); err != nil {
		d.removeContainer(id)
		return nil, fmt.Errorf("start container: %w", err)
	}
	t := &task{id: tc.ID, exit: drivers.NewExitWaiter(),
		state: taskState{ContainerID: id, ImageID: imageID, TTY: cfg.TTY, StdoutPath: tc.StdoutPath, StderrPath: tc.StderrPath, StartedAt: d.clock.Now()}}
	if err := d.tasks.Add(t.id, t); err != nil {
		d.removeContainer(id)
		return nil, err
	}
	started = true
	d.containers.add(id)
	d.watch(t, time.Time{})
	return t.handle()
}

// create makes the container. A container of the same name is a leftover
// of an attempt whose handle was never persisted; it is replaced.
func (d *Driver) create(ctx context.Context, name string, spec *createSpec) (string, error) {
	opts := client.ContainerCreateOptions{Name: name, Config: spec.Config, HostConfig: spec.HostConfig, NetworkingConfig: spec.Networking}
	res, err := d.client.ContainerCreate(ctx, opts)
	if isConflict(err) {
		if _, rmErr := d.client.ContainerRemove(ctx, name, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); rmErr != nil {
			return "", fmt.Errorf("remove stale container %s: %w", name, rmErr)
		}
		res, err = d.client.ContainerCreate(ctx, opts)
	}
	if err != nil {
		return "", fmt.Errorf("create container: %w", err)
	}
	return res.ID, nil
}

// removeContainer force-removes a container and its anonymous volumes.
func (d *Driver) removeContainer(id string) {
	_, _ = d.client.ContainerRemove(context.Background(), id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
}
