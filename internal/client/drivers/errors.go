package drivers

import "errors"

// Errors drivers return; the task runner turns them into task events.
var (
	ErrTaskNotFound      = errors.New("task not found in driver")
	ErrTaskExists        = errors.New("task already started in driver")
	ErrTaskRunning       = errors.New("task is still running; stop it or destroy with force")
	ErrDriverDisabled    = errors.New("driver is disabled on this client")
	ErrUnknownDriver     = errors.New("no such driver")
	ErrHandleMismatch    = errors.New("task handle belongs to another driver or version")
	ErrTaskGone          = errors.New("task is no longer running")
	ErrExitStatusUnknown = errors.New("exit status unknown: the task was re-attached after a client restart and exited while not a child of this client")
)
