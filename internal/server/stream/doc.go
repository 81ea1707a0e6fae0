// Package stream is the server's event broker: a bounded ring of event
// batches (one per applied raft index, plus the leader's eval quasi-status
// steps) and subscriptions that read it at their own pace.
//
// Publishing never waits on a subscriber: the ring overwrites its oldest
// batch, and a subscriber that had not read it yet is dropped (its next read
// returns ErrSubscriptionDropped) and must subscribe again. So a slow
// consumer never blocks the FSM, which publishes the batches (package fsm
// builds them from each entry's changes).
//
// The Broker keeps the last EventBufferSize batches (agent server {
// event_buffer_size }, default 100 as Nomad's). A subscription starts at the
// first retained batch whose index is at least the requested one (the oldest
// retained for an older index, or 0) and filters by topic, key (* or the
// event's key or one of its filter keys) and namespace (* for all; node
// events have none and always pass).
//
// The eval quasi-statuses are not in raft: the timeline's step observer
// publishes EvaluationDelayed, EvaluationScheduling (only the worker's step,
// which names it) and EvaluationApplying events at the latest applied index,
// with the timeline entry (Step: status, time, worker, note) next to the
// eval in the payload. Only the server that saw the step publishes it.
//
// server.EventEndpoint.Stream(ctx, *structs.EventStreamRequest, send) runs a
// subscription, sending an empty batch every 10 s (the clock's) while idle;
// the event stream's ACL check resolves the token for each batch (a deleted
// or expired token ends it) and sends only node events with node read and
// other events with read-job in their namespace. GET /v1/event/stream
// (package agent, event_http.go) is Nomad's NDJSON: {} at once (so the
// client sees the response start) and as heartbeats, then
// {"Index":N,"Events":[...]} with payloads in the API's JSON shape (allocs
// without their job, as Nomad). Parameters: repeated topic=Topic[:key]
// (unknown topics -> 400), namespace (default default), index. The official
// client's EventStream().Stream reads it; drover event stream [-topic
// T[:key]]... [-index N] [-n N] [-json] prints it. Streams end when the
// agent shuts down (the HTTP base context) or an embedder calls
// HTTPServer.CloseStreams.
package stream
