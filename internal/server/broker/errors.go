package broker

import "errors"

// Errors returned by the broker. Callers match them with errors.Is:
// ErrNotOutstanding and ErrTokenMismatch come wrapped with the eval ID.
var (
	// ErrNotEnabled: the broker only runs on the leader; this server is not
	// (or no longer) the leader, and its queues were flushed.
	ErrNotEnabled = errors.New("eval broker is not enabled (not the leader)")
	// ErrNotOutstanding: the eval is not held by any worker, e.g. it was
	// already acked, or its nack timer fired and it was redelivered.
	ErrNotOutstanding = errors.New("evaluation is not outstanding")
	// ErrTokenMismatch: the eval is outstanding, but under another token;
	// the caller's delivery is stale.
	ErrTokenMismatch = errors.New("evaluation token does not match the outstanding delivery")
)
