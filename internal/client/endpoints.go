package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/drover-project/drover/internal/client/allocrunner"
	"github.com/drover-project/drover/internal/client/checks"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/logmon"
	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

// Errors of the alloc endpoints; the HTTP layer maps the unknown-* ones
// to 404 and ErrBadRequest to 400.
var (
	ErrUnknownAlloc = errors.New("unknown allocation")
	ErrUnknownTask  = errors.New("unknown task")
	ErrBadRequest   = errors.New("bad request")
)

func (c *Client) runner(allocID string) (*allocrunner.Runner, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.runners[allocID]
	if r == nil {
		return nil, fmt.Errorf("%w %q on this node", ErrUnknownAlloc, allocID)
	}
	return r, nil
}

func (c *Client) task(allocID, task string) (*taskrunner.TaskRunner, error) {
	r, err := c.runner(allocID)
	if err != nil {
		return nil, err
	}
	tr := r.Task(task)
	if tr == nil {
		return nil, fmt.Errorf("%w %q in allocation %s", ErrUnknownTask, task, allocID)
	}
	return tr, nil
}

// HasAlloc reports whether this client runs the alloc (for forwarding).
func (c *Client) HasAlloc(allocID string) bool {
	_, err := c.runner(allocID)
	return err == nil
}

// AllocLogFiles lists the rotated files of a task's stream ("stdout" or
// "stderr") oldest first; the last is the one being written. Nomad's
// /v1/client/fs/logs reads across them: origin=start begins at the first
// file, origin=end counts offset back from the end of the last, and
// follow=true keeps reading the last file and moves on when a file with
// the next index appears.
func (c *Client) AllocLogFiles(allocID, task, stream string) ([]logmon.LogFile, error) {
	if stream != logmon.Stdout && stream != logmon.Stderr {
		return nil, fmt.Errorf("%w: log type must be stdout or stderr, got %q", ErrBadRequest, stream)
	}
	r, err := c.runner(allocID)
	if err != nil {
		return nil, err
	}
	if r.Task(task) == nil {
		return nil, fmt.Errorf("%w %q in allocation %s", ErrUnknownTask, task, allocID)
	}
	return logmon.List(r.AllocDir().LogDir, logmon.Base(task, stream))
}

// AllocFS returns the alloc's directory, the root of /v1/client/fs/ls and
// /v1/client/fs/cat paths (the HTTP layer must refuse paths escaping it).
func (c *Client) AllocFS(allocID string) (string, error) {
	r, err := c.runner(allocID)
	if err != nil {
		return "", err
	}
	return r.AllocDir().Root, nil
}

// AllocRestart restarts one running task, or every running task when
// task is empty.
func (c *Client) AllocRestart(allocID, task string) error {
	return c.eachTask(allocID, task, func(tr *taskrunner.TaskRunner) error { return tr.Restart() })
}

// AllocSignal sends a signal to one running task, or to all of them when
// task is empty.
func (c *Client) AllocSignal(allocID, task, signal string) error {
	if _, err := drivers.ParseSignal(signal); err != nil {
		return fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return c.eachTask(allocID, task, func(tr *taskrunner.TaskRunner) error { return tr.Signal(signal) })
}

func (c *Client) eachTask(allocID, task string, f func(*taskrunner.TaskRunner) error) error {
	if task != "" {
		tr, err := c.task(allocID, task)
		if err != nil {
			return err
		}
		return notRunning(task, f(tr))
	}
	r, err := c.runner(allocID)
	if err != nil {
		return err
	}
	var errs []error
	for _, tr := range r.Tasks() {
		if tr.State().State != structs.TaskStateRunning {
			continue
		}
		if err := f(tr); err != nil {
			errs = append(errs, fmt.Errorf("task %s: %w", tr.Name(), err))
		}
	}
	return errors.Join(errs...)
}

// AllocStats samples every running task of the alloc, by task name.
func (c *Client) AllocStats(allocID string) (map[string]*drivers.TaskStats, error) {
	r, err := c.runner(allocID)
	if err != nil {
		return nil, err
	}
	return r.TaskStats(), nil
}

// AllocState returns the alloc's client-side fields as last reported
// (client status, task states, deployment health).
func (c *Client) AllocState(allocID string) (*structs.Allocation, error) {
	r, err := c.runner(allocID)
	if err != nil {
		return nil, err
	}
	return r.ClientAlloc(), nil
}

// AllocChecks returns the latest result of each of the alloc's service
// checks, and the alloc's task group.
func (c *Client) AllocChecks(allocID string) ([]checks.Result, string, error) {
	r, err := c.runner(allocID)
	if err != nil {
		return nil, "", err
	}
	return r.CheckResults(), r.Alloc().Name, nil
}

// ErrTaskNotRunning is returned for an action on a task that is not
// running right now (not started yet, between restarts, or finished);
// the HTTP layer answers 409.
var ErrTaskNotRunning = errors.New("task is not running")

// notRunning wraps the task runner's ErrNotRunning as ErrTaskNotRunning.
func notRunning(task string, err error) error {
	if errors.Is(err, taskrunner.ErrNotRunning) {
		return fmt.Errorf("%w: task %q (it may be between restarts)", ErrTaskNotRunning, task)
	}
	return err
}

// AllocExec runs a command in a running task's environment and returns
// its exit code.
func (c *Client) AllocExec(ctx context.Context, allocID, task string, req *drivers.ExecRequest) (int, error) {
	if task == "" {
		return 0, fmt.Errorf("%w: task: a task name is required", ErrBadRequest)
	}
	if len(req.Command) == 0 || req.Command[0] == "" {
		return 0, fmt.Errorf("%w: command: a command is required", ErrBadRequest)
	}
	tr, err := c.task(allocID, task)
	if err != nil {
		return 0, err
	}
	code, err := tr.Exec(ctx, req)
	if errors.Is(err, taskrunner.ErrExecUnsupported) {
		return 0, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return code, notRunning(task, err)
}
