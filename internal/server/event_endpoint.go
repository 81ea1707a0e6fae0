package server

import (
	"context"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// EventHeartbeatInterval is how often an idle event stream sends an empty
// batch, so clients and proxies see the connection is alive.
const EventHeartbeatInterval = 10 * time.Second

// EventEndpoint is the Event.* endpoint family.
type EventEndpoint struct{ srv *Server }

// Stream sends the batches matching the request, starting at its index,
// until ctx ends, the send fails, or the subscriber falls behind the
// buffer (stream.ErrSubscriptionDropped). An idle stream gets an empty
// batch (a heartbeat) every EventHeartbeatInterval.
func (e *EventEndpoint) Stream(ctx context.Context, args *structs.EventStreamRequest, send func(*structs.Events) error) error {
	for t := range args.Topics {
		if !structs.KnownTopic(t) {
			return BadRequest("topic: unknown topic %q", t)
		}
	}
	if _, err := e.srv.auth.ResolveToken(args.AuthToken); err != nil {
		return err
	}
	sub := e.srv.events.Subscribe(args)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan *structs.Events)
	errc := make(chan error, 1)
	go func() {
		for {
			b, err := sub.Next(ctx)
			if err != nil {
				errc <- err
				return
			}
			select {
			case batches <- b:
			case <-ctx.Done():
				errc <- ctx.Err()
				return
			}
		}
	}()
	for {
		select {
		case b := <-batches:
			// The token is resolved again for each batch: a deleted or
			// expired token ends the stream.
			visible, err := e.srv.auth.VisibleEvents(args, b)
			if err != nil {
				return err
			}
			if err := send(visible); err != nil {
				return err
			}
		case <-e.srv.config.Clock.After(EventHeartbeatInterval):
			if err := send(&structs.Events{}); err != nil {
				return err
			}
		case err := <-errc:
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}

// publishEvalStep publishes an eval's quasi-status step (delayed,
// scheduling, applying) as an Evaluation event at the latest applied
// index. Only the server that saw the step (the leader, or the worker's
// server) publishes it; stored statuses come from the FSM on every
// server instead.
func (s *Server) publishEvalStep(evalID string, step *structs.EvalTimelineEntry) {
	switch step.Status {
	case structs.EvalQuasiStatusDelayed, structs.EvalQuasiStatusApplying:
	case structs.EvalQuasiStatusScheduling:
		if step.Worker == "" {
			return // the broker's dequeue; the worker's own step follows, naming it
		}
	default:
		return
	}
	eval, _ := s.State().EvalByID(nil, evalID)
	ev := structs.Event{Topic: structs.TopicEvaluation, Type: structs.EvalQuasiStatusEventType(step.Status), Key: evalID}
	if eval != nil {
		ev.Namespace = eval.Namespace
		ev.FilterKeys = structs.EventFilterKeys(eval.JobID, eval.DeploymentID)
	} else {
		eval = &structs.Evaluation{ID: evalID}
	}
	ev.Payload = &structs.EvaluationEvent{Evaluation: eval, Step: step}
	ev.Index = s.State().LatestIndex()
	s.events.Publish(&structs.Events{Index: ev.Index, Events: []structs.Event{ev}})
}
