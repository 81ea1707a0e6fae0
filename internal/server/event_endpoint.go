package server

import (
	"context"
	"time"

	"github.com/drover-project/drover/internal/acl"
	"github.com/drover-project/drover/internal/structs"
)

// EventHeartbeatInterval is how often an idle event stream sends an empty
// batch, so clients and proxies see the connection is alive.
const EventHeartbeatInterval = 10 * time.Second

// EventEndpoint is the Event.* endpoint family.
type EventEndpoint struct{ srv *Server }

// Stream sends the batches matching the request, starting at its index,
// until ctx ends, the send fails, or the subscriber falls behind the
// buffer (stream.ErrSubscriptionDropped). A caller that may not read
// every topic asked for gets the error before anything is sent (403, as
// Nomad); otherwise the first send is a heartbeat, at once, so the
// client sees the stream open, and an idle stream gets another every
// EventHeartbeatInterval.
func (e *EventEndpoint) Stream(ctx context.Context, args *structs.EventStreamRequest, send func(*structs.Events) error) error {
	for t := range args.Topics {
		if !structs.KnownTopic(t) {
			return BadRequest("topic: unknown topic %q", t)
		}
	}
	a, err := e.srv.auth.ResolveToken(args.AuthToken)
	if err != nil {
		return err
	}
	if !e.topicsAllowed(a, args) {
		return ErrPermissionDenied
	}
	sub := e.srv.events.Subscribe(args)
	if err := send(&structs.Events{}); err != nil {
		return err
	}
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

// topicsAllowed is Nomad's rule (nomad/event_endpoint.go, validateNsOp):
// every topic asked for must be readable in the namespace asked for (with
// namespace=*, in every namespace that exists): Job, Evaluation,
// Allocation, Deployment and Service need read-job, Node needs node read,
// NodePool and * (no topic means *) need management. Events are still
// filtered one by one after that (auth.Service.VisibleEvents): the token
// is resolved again for each batch, so a policy narrowed, or a namespace
// created, while the stream is open is honoured. Where Drover differs on
// purpose: Nomad fixes the namespaces of a namespace=* stream when it
// opens; Drover also sends the events of a namespace created later when
// the token may read them.
func (e *EventEndpoint) topicsAllowed(a *acl.ACL, args *structs.EventStreamRequest) bool {
	if a.IsManagement() {
		return true
	}
	if len(args.Topics) == 0 {
		return false // every topic
	}
	namespaces := []string{namespaceOrDefault(args.Namespace)}
	if namespaces[0] == "*" {
		all, err := e.srv.State().Namespaces(nil, "")
		if err != nil {
			return false
		}
		namespaces = namespaces[:0]
		for _, ns := range all {
			namespaces = append(namespaces, ns.Name)
		}
	}
	for t := range args.Topics {
		for _, ns := range namespaces {
			if !eventTopicAllowed(a, t, ns) {
				return false
			}
		}
	}
	return true
}

func eventTopicAllowed(a *acl.ACL, t structs.Topic, ns string) bool {
	switch t {
	case structs.TopicJob, structs.TopicEvaluation, structs.TopicAllocation, structs.TopicDeployment, structs.TopicService:
		return a.AllowNamespaceOperation(ns, acl.NamespaceCapabilityReadJob)
	case structs.TopicNode:
		return a.AllowNodeRead()
	}
	return false // NodePool (Nomad cannot filter pools by token) and *: management
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
