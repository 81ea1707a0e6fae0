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
