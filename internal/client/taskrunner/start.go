package taskrunner

import (
	"fmt"
	"slices"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/logmon"
	"github.com/drover-project/drover/internal/structs"
)

// start prepares and launches the task; on failure the task is dead and
// failed with an event saying why, and start reports false.
func (tr *TaskRunner) start(drv drivers.Driver) bool {
	tr.emitSetupOnce()
	tc, typ, err := tr.taskConfig(drv)
	if err != nil {
		if tr.abortStart() {
			return false // a download cut short by a kill or shutdown
		}
		tr.failWith(typ, err.Error())
		return false
	}
	if err := tr.openLogs(); err != nil {
		tr.failWith(EventSetupFailure, fmt.Sprintf("failed to set up logs: %v", err))
		return false
	}
	h, err := drv.Start(tr.runCtx, tc)
	if err != nil {
		if tr.abortStart() {
			return false
		}
		tr.failWith(EventDriverFailure, err.Error())
		return false
	}
	tr.setHandle(h)
	tr.markRunning(NewEvent(tr.clock.Now(), EventStarted, "Task started by client"))
	return true
}

// abortStart ends a start that failed because the runner was told to
// stop meanwhile: a kill is not a task failure, and a shutdown leaves the
// task for the next client. It reports whether it ended the start.
func (tr *TaskRunner) abortStart() bool {
	if tr.shuttingDown() {
		tr.finish()
		return true
	}
	if tr.killed() {
		tr.markDead(false, nil)
		return true
	}
	return false
}

func (tr *TaskRunner) emitSetupOnce() {
	tr.mu.Lock()
	first := !tr.setupDone
	tr.setupDone = true
	tr.mu.Unlock()
	if first {
		tr.emit(NewEvent(tr.clock.Now(), EventSetup, "Building Task Directory"))
	}
}

// taskConfig builds what the driver gets: directories, env, the config
// interpolated and validated. The event type says which step failed.
func (tr *TaskRunner) taskConfig(drv drivers.Driver) (*drivers.TaskConfig, string, error) {
	tr.mu.Lock()
	alloc, task := tr.alloc, tr.task
	tr.mu.Unlock()
	if err := devicesRefused(alloc, task.Name); err != nil {
		return nil, EventSetupFailure, err
	}
	td, err := tr.cfg.AllocDir.BuildTask(task.Name)
	if err != nil {
		return nil, EventSetupFailure, fmt.Errorf("failed to build task directory: %w", err)
	}
	var node *structs.Node
	if tr.cfg.Node != nil {
		node = tr.cfg.Node()
	}
	var network *drivers.NetworkIsolation
	if tr.cfg.Network != nil {
		network = tr.cfg.Network()
	}
	env := BuildEnv(EnvInputs{Alloc: alloc, Task: task, Group: alloc.Group(), Node: node, Region: tr.cfg.Region, TaskDir: td, Network: network})
	if typ, err := tr.prestart(task, td, env, node); err != nil {
		return nil, typ, err
	}
	cfg := NewInterpolator(env, node, tr.cfg.Region).Config(task.Config)
	if err := drv.ValidateConfig(cfg); err != nil {
		return nil, EventDriverFailure, fmt.Errorf("failed to validate task config: %w", err)
	}
	tc := &drivers.TaskConfig{
		ID: tr.taskID, AllocID: alloc.ID, TaskName: task.Name, Config: cfg, Env: env, User: task.User, TaskDir: td,
		StdoutPath: logmon.LivePath(td.LogDir, task.Name, logmon.Stdout),
		StderrPath: logmon.LivePath(td.LogDir, task.Name, logmon.Stderr),
		Resources:  resources(alloc, task),
		Ports:      Ports(alloc, task.Name),
		Emit:       func(msg string) { tr.emit(NewEvent(tr.clock.Now(), EventDriver, msg)) },
	}
	if tc.Mounts, err = volumeMounts(alloc, task, node); err != nil {
		return nil, EventSetupFailure, err
	}
	if alloc.Job != nil {
		tc.JobName = alloc.Job.Name
	}
	tc.Network = network
	return tc, "", nil
}

// resources prefers what the scheduler granted over what was asked.
func resources(alloc *structs.Allocation, task *structs.Task) drivers.Resources {
	var r drivers.Resources
	if t := task.Resources; t != nil {
		r = drivers.Resources{CPUShares: int64(t.CPU), Cores: t.Cores, MemoryMB: int64(t.MemoryMB), MemoryMaxMB: int64(t.MemoryMaxMB)}
	}
	if alloc.AllocatedResources != nil {
		if t := alloc.AllocatedResources.Tasks[task.Name]; t != nil {
			r = drivers.Resources{CPUShares: t.CpuShares, Cores: len(t.ReservedCores), CoreIDs: slices.Clone(t.ReservedCores), MemoryMB: t.MemoryMB, MemoryMaxMB: t.MemoryMaxMB}
		}
	}
	return r
}

// openLogs starts log capture unless it runs already (it survives
// restarts of the task).
func (tr *TaskRunner) openLogs() error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.logs != nil {
		return nil
	}
	if lc := tr.task.LogConfig; lc != nil && lc.Disabled {
		return nil
	}
	if err := tr.cfg.AllocDir.Build(); err != nil {
		return err
	}
	logs, err := startLogs(tr.cfg.AllocDir.LogDir, tr.task.Name, tr.task.LogConfig, tr.cfg.LogPollInterval)
	if err != nil {
		return err
	}
	tr.logs = logs
	return nil
}

func (tr *TaskRunner) logsFlush() {
	tr.mu.Lock()
	logs := tr.logs
	tr.mu.Unlock()
	logs.flush()
}
