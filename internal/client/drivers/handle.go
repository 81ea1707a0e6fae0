package drivers

import (
	"encoding/json"
	"time"
)

// TaskHandle is what the client persists (as JSON or msgpack) to hand back
// to Recover after a restart. State is driver-private and self-contained.
type TaskHandle struct {
	Driver    string
	TaskID    string
	Version   int
	StartedAt time.Time
	State     json.RawMessage
}

// ExitResult is how a task ended.
type ExitResult struct {
	// ExitCode is the process's exit status; when it was killed by a
	// signal it is 128+Signal, as a shell and Docker report it.
	ExitCode  int
	Signal    int
	OOMKilled bool
	// Err is set when the driver could not observe the exit properly
	// (ErrExitStatusUnknown) or the task failed outside the process.
	Err error
}

// Successful reports a clean exit.
func (r *ExitResult) Successful() bool {
	return r.ExitCode == 0 && r.Signal == 0 && !r.OOMKilled && r.Err == nil
}

// TaskStats is one usage sample. CPU figures are cumulative since the task
// started so a caller derives rates from two samples; Measured lists the
// fields the driver could fill.
type TaskStats struct {
	Timestamp           time.Time
	CPUUserNanos        uint64
	CPUSystemNanos      uint64
	CPUTotalNanos       uint64
	MemoryRSSBytes      uint64
	MemoryUsageBytes    uint64
	MemoryMaxUsageBytes uint64
	Measured            []string
}

// Names of TaskStats fields for Measured.
const (
	MeasuredCPUUser     = "cpu.user"
	MeasuredCPUSystem   = "cpu.system"
	MeasuredCPUTotal    = "cpu.total"
	MeasuredMemRSS      = "memory.rss"
	MeasuredMemUsage    = "memory.usage"
	MeasuredMemMaxUsage = "memory.max_usage"
)
