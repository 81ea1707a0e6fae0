package drivers

import (
	"context"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Driver runs tasks of one kind. Every method is safe for concurrent use.
// Task IDs are the runner's (TaskConfig.ID); a driver forgets a task only
// on Destroy.
type Driver interface {
	// Name is the name jobs use in `driver = "..."`.
	Name() string
	// Fingerprint reports whether the driver can run tasks on this machine.
	Fingerprint(ctx context.Context) *structs.DriverInfo
	// ValidateConfig decodes a task's config strictly: an unknown field, a
	// wrong type or a missing required field is an error naming the field.
	ValidateConfig(cfg map[string]any) error
	// Start launches the task and returns the handle the client persists
	// to re-attach after a restart.
	Start(ctx context.Context, task *TaskConfig) (*TaskHandle, error)
	// Wait returns a channel that receives the task's exit exactly once;
	// it is closed without a value if ctx ends first.
	Wait(ctx context.Context, taskID string) (<-chan *ExitResult, error)
	// Stop sends signal (SIGTERM when empty), then SIGKILL once timeout
	// has passed, to the whole process tree or container. It returns once
	// the task has exited or was killed.
	Stop(taskID string, timeout time.Duration, signal string) error
	// Signal delivers a signal to the task without stopping it.
	Signal(taskID string, signal string) error
	// Destroy releases everything the task holds (cgroups, containers).
	// A running task is an error (ErrTaskRunning) unless force is set, in
	// which case it is killed first.
	Destroy(taskID string, force bool) error
	// Recover re-attaches to a task started by an earlier driver instance
	// (a client restart). It fails when the task is gone.
	Recover(handle *TaskHandle) error
	// Stats samples the task's resource usage.
	Stats(ctx context.Context, taskID string) (*TaskStats, error)
}
