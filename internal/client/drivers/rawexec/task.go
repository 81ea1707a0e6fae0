package rawexec

import (
	"encoding/json"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
)

// handleVersion is bumped when taskState changes incompatibly.
const handleVersion = 1

// taskState is the handle's State: enough to find the process again.
type taskState struct {
	PID       int
	StartTime uint64 // from /proc/PID/stat, guards against PID reuse
	StartedAt time.Time
	// ExitFile is where the supervisor records the task's exit status;
	// empty in handles written before the supervisor existed.
	ExitFile string `json:",omitempty"`
}

// task is one running (or exited, not yet destroyed) process.
type task struct {
	id    string
	state taskState
	exit  *drivers.ExitWaiter
}

func (t *task) handle() (*drivers.TaskHandle, error) {
	raw, err := json.Marshal(t.state)
	if err != nil {
		return nil, err
	}
	return &drivers.TaskHandle{Driver: Name, TaskID: t.id, Version: handleVersion, StartedAt: t.state.StartedAt, State: raw}, nil
}

// finish records the task's exit once its supervisor is gone. The exit
// file is the truth; without one the supervisor died with the task
// (SIGKILL to the group, from Stop) and its own status stands in, which
// a client that restarted meanwhile does not have.
func (t *task) finish(supervisor *drivers.ExitResult) {
	res := drivers.ReadExitRecord(t.state.ExitFile)
	if res == nil {
		res = supervisor
	}
	if res == nil {
		res = &drivers.ExitResult{Err: drivers.ErrExitStatusUnknown}
	}
	t.exit.Set(res)
}
