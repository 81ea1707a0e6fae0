package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// Stop implements drivers.Driver. Docker's own stop endpoint only takes
// a custom signal from API 1.42, so the signal-then-kill sequence is ours.
func (d *Driver) Stop(taskID string, timeout time.Duration, signal string) error {
	t, sig, err := d.tasks.WithSignal(taskID, signal)
	if err != nil {
		return err
	}
	if t.exit.Exited() {
		return nil
	}
	exited, err := drivers.SignalThenWait(sig, timeout, t.exit.Done(), func(s syscall.Signal) error { return d.kill(t, drivers.SignalName(s)) })
	if exited || err != nil {
		return err
	}
	if err := d.kill(t, "SIGKILL"); err != nil {
		return err
	}
	return drivers.AwaitKill(t.exit.Done(), killGrace)
}

// kill signals the container; one that already stopped is fine.
func (d *Driver) kill(t *task, signal string) error {
	_, err := d.client.ContainerKill(context.Background(), t.state.ContainerID, client.ContainerKillOptions{Signal: signal})
	if err == nil || isConflict(err) || IsNotFound(err) {
		return nil
	}
	return err
}

// Signal implements drivers.Driver.
func (d *Driver) Signal(taskID string, signal string) error {
	t, sig, err := d.tasks.WithSignal(taskID, signal)
	if err != nil {
		return err
	}
	if t.exit.Exited() {
		return drivers.ErrTaskGone
	}
	_, err = d.client.ContainerKill(context.Background(), t.state.ContainerID, client.ContainerKillOptions{Signal: drivers.SignalName(sig)})
	return err
}

// Destroy implements drivers.Driver: it removes the container (unless
// the plugin's gc { container = false }, which leaves a stopped one for
// inspection) and releases the task's use of its image.
func (d *Driver) Destroy(taskID string, force bool) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	if !t.exit.Exited() && !force {
		return drivers.ErrTaskRunning
	}
	if t.cancel != nil {
		t.cancel() // the log stream and wait end first, not on a removed container
	}
	if d.cfg.GC.Container {
		_, err = d.client.ContainerRemove(context.Background(), t.state.ContainerID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	} else if !t.exit.Exited() {
		_, err = d.client.ContainerKill(context.Background(), t.state.ContainerID, client.ContainerKillOptions{Signal: "SIGKILL"})
		if isConflict(err) {
			err = nil
		}
	}
	if err != nil && !IsNotFound(err) {
		return err
	}
	d.tasks.Remove(taskID)
	d.images.release(t.state.ImageID, taskID)
	d.containers.remove(t.state.ContainerID)
	return nil
}

// Stats implements drivers.Driver.
func (d *Driver) Stats(ctx context.Context, taskID string) (*drivers.TaskStats, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	res, err := d.client.ContainerStats(ctx, t.state.ContainerID, client.ContainerStatsOptions{})
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var s container.StatsResponse
	if err := json.NewDecoder(res.Body).Decode(&s); err != nil {
		return nil, fmt.Errorf("decode container stats: %w", err)
	}
	cpu := s.CPUStats.CPUUsage
	rss := s.MemoryStats.Stats["rss"]
	if rss == 0 {
		rss = s.MemoryStats.Stats["anon"] // cgroup v2 daemons
	}
	return &drivers.TaskStats{
		Timestamp: time.Now(), CPUTotalNanos: cpu.TotalUsage, CPUUserNanos: cpu.UsageInUsermode, CPUSystemNanos: cpu.UsageInKernelmode,
		MemoryRSSBytes: rss, MemoryUsageBytes: s.MemoryStats.Usage, MemoryMaxUsageBytes: s.MemoryStats.MaxUsage,
		Measured: []string{drivers.MeasuredCPUTotal, drivers.MeasuredCPUUser, drivers.MeasuredCPUSystem, drivers.MeasuredMemRSS, drivers.MeasuredMemUsage, drivers.MeasuredMemMaxUsage},
	}, nil
}

// logsSince is where a re-attached log stream resumes: the logs' last
// write, so output from while the client was down is kept (a line or two
// around that instant may repeat).
func logsSince(st taskState) time.Time {
	var since time.Time
	for _, p := range []string{st.StdoutPath, st.StderrPath} {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(since) {
			since = fi.ModTime()
		}
	}
	if since.IsZero() {
		return time.Now()
	}
	return since
}
