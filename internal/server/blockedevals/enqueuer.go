package blockedevals

import "github.com/drover-project/drover/internal/structs"

// Enqueuer is the eval broker as the tracker sees it. It is an interface,
// not the broker type, so the two leader components do not import each
// other and tests can record what was released.
type Enqueuer interface {
	// EnqueueAll enqueues evals; a non-empty token means the eval is
	// currently held by a worker under that token and must be requeued
	// after it acks/nacks.
	EnqueueAll(evals map[*structs.Evaluation]string)
}
