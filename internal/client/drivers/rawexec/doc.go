// Package rawexec is the raw_exec driver: the task's command runs as a
// plain child process of the client, without isolation, in its own
// process group so that stopping it stops everything it spawned. It is
// off unless the agent enables it: plugin "raw_exec" { config { enabled = true } }.
//
// After a client restart Recover re-attaches by PID, checking the start
// time so a recycled PID is never mistaken for the task. The task is then
// no longer the client's child, so its exit is noticed by polling /proc
// and its exit status is unknown (ExitResult.Err = ErrExitStatusUnknown).
package rawexec
