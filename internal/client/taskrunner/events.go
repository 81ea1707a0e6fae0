package taskrunner

import (
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Task event types, spelled as Nomad spells them so `alloc status` output
// and tooling that matches on them work unchanged.
const (
	EventReceived         = "Received"
	EventSetup            = "Task Setup"
	EventSetupFailure     = "Setup Failure"
	EventStarted          = "Started"
	EventTerminated       = "Terminated"
	EventRestarting       = "Restarting"
	EventRestartSignal    = "Restart Signal"
	EventKilling          = "Killing"
	EventKilled           = "Killed"
	EventNotRestarting    = "Not Restarting"
	EventDriverFailure    = "Driver Failure"
	EventDriver           = "Driver" // a driver's progress message (image pulls)
	EventFailedValidation = "Failed Validation"
	EventSiblingFailed    = "Sibling Task Failed"
	EventSignaling        = "Signaling"
	EventLeaderDead       = "Leader Task Dead"
	EventRestored         = "Task Restored"
	// Nomad's TaskWaitingShuttingDownDelay and TaskSkippingShutdownDelay.
	EventWaitingShutdownDelay  = "Waiting for shutdown delay"
	EventSkippingShutdownDelay = "Skipping shutdown delay"
)

// MaxEvents is how many events a task state keeps; older ones are dropped
// so a crash-looping task does not grow its alloc without bound.
const MaxEvents = 10

// NewEvent returns an event of type typ at now with a display message.
func NewEvent(now time.Time, typ, msg string) *structs.TaskEvent {
	return &structs.TaskEvent{Type: typ, Time: now.UnixNano(), DisplayMessage: msg, Message: msg, Details: map[string]string{}}
}

// failing marks an event as the one that fails the task.
func failing(ev *structs.TaskEvent) *structs.TaskEvent {
	ev.FailsTask = true
	ev.Details["fails_task"] = "true"
	return ev
}

// appendEvent adds ev, keeping the first event (Received, which says when
// the task arrived) and the newest ones.
func appendEvent(events []*structs.TaskEvent, ev *structs.TaskEvent) []*structs.TaskEvent {
	events = append(events, ev)
	if len(events) > MaxEvents {
		events = append(events[:1], events[len(events)-MaxEvents+1:]...)
	}
	return events
}
