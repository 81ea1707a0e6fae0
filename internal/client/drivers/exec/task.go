package exec

import (
	"encoding/json"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
)

// handleVersion is bumped when taskState changes incompatibly.
const handleVersion = 1

// taskState is the handle's State.
type taskState struct {
	ExecutorPID       int
	ExecutorStartTime uint64 // guards against PID reuse
	ExitFile          string
	Cgroup            cgroupState
	StartedAt         time.Time
}

type task struct {
	id    string
	state taskState
	cg    *cgroup
	exit  *drivers.ExitWaiter
}

func (t *task) handle() (*drivers.TaskHandle, error) {
	raw, err := json.Marshal(t.state)
	if err != nil {
		return nil, err
	}
	return &drivers.TaskHandle{Driver: Name, TaskID: t.id, Version: handleVersion, StartedAt: t.state.StartedAt, State: raw}, nil
}

// finish records the task's exit once its executor is gone. The exit
// file is the truth; without one the executor died before the task
// finished (killed by Stop after the timeout, or OOM-killed itself) and
// its own status stands in. The OOM counter is read before the cgroup
// goes away.
func (t *task) finish(executor *drivers.ExitResult) {
	res := drivers.ReadExitRecord(t.state.ExitFile)
	if res == nil {
		res = executor
	}
	if res == nil {
		res = &drivers.ExitResult{Err: drivers.ErrExitStatusUnknown}
	}
	res.OOMKilled = t.cg.oomKilled()
	t.exit.Set(res)
}
