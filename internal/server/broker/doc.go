// Package broker is the leader's eval broker: it holds pending evaluations
// in priority queues per scheduler type and delivers each to one worker at a
// time, at least once (ack/nack with a nack timeout and a delivery limit),
// with at most one eval per job ready or in flight, and evals held back
// until their WaitUntil.
//
// The Broker is a synchronous state machine behind one mutex: every method
// returns promptly, so a test or the simulator can step it (Dequeue with a
// done context, clock.Manual); Dequeue with a live context is the workers'
// blocking wait. Timers come from the injected clock; with clock.Manual they
// fire inside Advance.
//
// Ready heaps per scheduler type are ordered by priority, then create index
// (ready_queue.go, eval_heap.go). One eval per job is in flight (jobs.go):
// later ones wait; on ack the newest waiting one is enqueued and the older
// ones become cancelable (cancelable.go), canceled by the leader in one raft
// write. Each delivery carries a token (unacked.go); the nack timer (60 s,
// resettable: the leader pauses it while the eval's plan waits in the plan
// queue) and nack delays (1 s, then 20 s) are on the clock; past the
// delivery limit (3) a nack moves the eval to the _failed queue (ack.go),
// which the leader's undeliverable reaper drains. A time-ordered heap holds
// evals whose WaitUntil is in the future (delay.go, delay_heap.go: the
// delayed quasi-status). An observer (observer.go) reports each transition
// to the server's eval timeline.
//
// SetPaused (the scheduler configuration's PauseEvalBroker, applied by the
// leader) stops deliveries to workers until resumed; evals are still taken
// and held, and the _failed queue is still reaped.
//
// Waiting reports whether a job has an eval waiting, not yet dequeued: the
// leader's node-eval coalescing asks it (docs/design.md, rule 1).
package broker
