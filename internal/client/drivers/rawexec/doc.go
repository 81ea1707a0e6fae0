// Package rawexec is the raw_exec driver: the task's command runs without
// isolation, as the child of a small supervisor process (the client's own
// binary re-run with SupervisorArg), in the supervisor's process group so
// that stopping it stops everything it spawned. It is off unless the
// agent enables it: plugin "raw_exec" { config { enabled = true } }.
//
// The supervisor waits for the task and writes its exit status to a file
// in the alloc dir. After a client restart Recover re-attaches to the
// supervisor by PID (checking the start time so a recycled PID is never
// mistaken for it), notices its exit by polling /proc, and reads the real
// exit status from that file; a task that finished while the client was
// down recovers with its exit already known. Only handles written before
// the supervisor existed end with ErrExitStatusUnknown.
//
// A start stopped before it returns kills the whole group, not just the
// supervisor, so a task forked meanwhile cannot run on untracked. Each
// started group is recorded next to the exit file until Destroy; when the
// client starts, ReapOrphans kills the recorded groups that no persisted
// handle claims (reap.go), touching only processes Drover started.
package rawexec
