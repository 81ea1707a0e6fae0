package broker

import (
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Transitions reported to the Observer.
const (
	// ObservePending: entered a ready queue, or waits behind another eval
	// of its job (stored status pending, not delayed).
	ObservePending = structs.EvalStatusPending
	// ObserveDelayed: held until WaitUntil or the end of its nack delay.
	ObserveDelayed = structs.EvalQuasiStatusDelayed
	// ObserveScheduling: dequeued by a worker.
	ObserveScheduling = structs.EvalQuasiStatusScheduling
	// ObserveAcked and ObserveNacked end a delivery.
	ObserveAcked  = "acked"
	ObserveNacked = "nacked"
	// ObserveCancelable: superseded by a newer eval of its job; waits for
	// the leader to cancel it (Cancelable).
	ObserveCancelable = "cancelable"
)

// Observer receives eval transitions, for the eval timeline. It is called
// after the broker's lock is released, so it may call the broker; calls
// for one eval arrive in order as long as the operations causing them are
// ordered (a worker acks only after its dequeue returned).
type Observer func(evalID, quasiStatus string, at time.Time)

type event struct {
	evalID, status string
	at             time.Time
}

// SetObserver installs (or, with nil, removes) the observer.
func (b *Broker) SetObserver(obs Observer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.observer = obs
}

// noteLocked records a transition for the observer; free when none is set.
func (b *Broker) noteLocked(e *structs.Evaluation, status string) {
	if b.observer != nil {
		b.events = append(b.events, event{evalID: e.ID, status: status, at: b.clk.Now()})
	}
}
