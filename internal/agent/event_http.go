package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// eventStream answers GET /v1/event/stream as Nomad does: one JSON object
// per line, {"Index":N,"Events":[...]}, and {} as a heartbeat while idle.
// topic=Topic[:key] (repeatable; "*" for every topic or key), namespace=
// ("*" for all) and index= (resume from; an index older than the buffer
// starts at the oldest retained batch) select what is sent.
func (h *HTTPServer) eventStream(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	topics, err := parseEventTopics(r.URL.Query()["topic"])
	if err != nil {
		return nil, err
	}
	req := &structs.EventStreamRequest{Topics: topics, Index: q.MinQueryIndex, QueryOptions: q}
	rc := http.NewResponseController(w)
	enc := json.NewEncoder(w)
	started := false
	send := func(b *structs.Events) error {
		if !started {
			started = true
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
		}
		if err := enc.Encode(apiEvents(b)); err != nil {
			return err
		}
		return rc.Flush()
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-h.streamsClosed:
			cancel()
		case <-ctx.Done():
		}
	}()
	// Stream refuses (400 for a bad topic, 403 for a topic the token may
	// not read) before it sends anything; its first send is a heartbeat,
	// at once, so the client sees the stream open (the official client
	// waits for the response headers).
	if err := h.srv.Event.Stream(ctx, req, send); err != nil {
		if !started {
			return nil, err
		}
		h.log.Debug("event stream ended", "error", err)
	}
	return nil, nil
}

// parseEventTopics turns topic=Job:web parameters into the subscription's
// topic map; no parameter means every topic. A parameter is Nomad's
// Topic[:Key]: a topic alone means every key ("*"); a key must not be empty
// and must not hold another colon, which Nomad refuses as well.
func parseEventTopics(params []string) (map[structs.Topic][]string, error) {
	if len(params) == 0 {
		return nil, nil
	}
	topics := map[structs.Topic][]string{}
	for _, p := range params {
		name, key, found := strings.Cut(p, ":")
		switch {
		case !found:
			key = "*"
		case key == "":
			return nil, server.BadRequest("topic: %q has an empty key (want Topic or Topic:Key)", p)
		case strings.Contains(key, ":"):
			return nil, server.BadRequest("topic: %q has more than one colon (want Topic or Topic:Key)", p)
		}
		t := structs.Topic(name)
		if !structs.KnownTopic(t) {
			return nil, server.BadRequest("topic: unknown topic %q in %q (want Job, Evaluation, Allocation, Deployment, Node, NodePool, Service or *)", name, p)
		}
		topics[t] = append(topics[t], key)
	}
	return topics, nil
}

// apiEvent is one event in Nomad's JSON shape; Payload is keyed by the
// object's kind ({"Job": {...}}).
type apiEvent struct {
	Topic      structs.Topic
	Type       string
	Key        string
	Namespace  string
	FilterKeys []string
	Index      uint64
	Payload    map[string]any
}

// apiEventBatch is one stream frame; a heartbeat has no fields at all.
type apiEventBatch struct {
	Index  uint64     `json:",omitempty"`
	Events []apiEvent `json:",omitempty"`
}

func apiEvents(b *structs.Events) *apiEventBatch {
	out := &apiEventBatch{Index: b.Index, Events: make([]apiEvent, 0, len(b.Events))}
	for _, e := range b.Events {
		out.Events = append(out.Events, apiEvent{
			Topic: e.Topic, Type: e.Type, Key: e.Key, Namespace: e.Namespace,
			FilterKeys: e.FilterKeys, Index: e.Index, Payload: apiEventPayload(e.Payload),
		})
	}
	if len(out.Events) == 0 {
		out.Events = nil
	}
	return out
}

// apiEventPayload renders a payload with the API's types.
func apiEventPayload(p any) map[string]any {
	switch v := p.(type) {
	case *structs.JobEvent:
		out := map[string]any{"Job": apiconv.JobFromStructs(v.Job)}
		if v.Deleted {
			out["Deleted"] = true
		}
		return out
	case *structs.EvaluationEvent:
		out := map[string]any{"Evaluation": apiconv.EvalFromStructs(v.Evaluation)}
		if v.Step != nil {
			out["Step"] = v.Step
		}
		return out
	case *structs.AllocationEvent:
		a := apiconv.AllocFromStructs(v.Allocation)
		a.Job = nil // as Nomad does: the job is its own topic, and large
		return map[string]any{"Allocation": a}
	case *structs.DeploymentEvent:
		return map[string]any{"Deployment": apiconv.DeploymentFromStructs(v.Deployment)}
	case *structs.NodeStreamEvent:
		n := apiconv.NodeFromStructs(v.Node) // the API node carries no SecretID
		return map[string]any{"Node": n}
	case *structs.NodePoolEvent:
		// Not api.NodePool: its MarshalJSON writes NodeIdentityTTL as a
		// string, which the client's event decoder cannot read back.
		p := v.NodePool
		return map[string]any{"NodePool": map[string]any{"Name": p.Name, "Description": p.Description, "Meta": p.Meta,
			"NodeIdentityTTL": 0, "SchedulerConfiguration": nil, "CreateIndex": p.CreateIndex, "ModifyIndex": p.ModifyIndex}}
	case *structs.ServiceRegistrationEvent:
		return map[string]any{"Service": apiconv.ServiceRegistrationFromStructs(v.Service)}
	case *structs.ACLTokenEvent:
		return map[string]any{"ACLToken": apiconv.ACLTokenFromStructs(v.ACLToken)}
	case *structs.ACLPolicyEvent:
		return map[string]any{"ACLPolicy": apiconv.ACLPolicyFromStructs(v.ACLPolicy)}
	case *structs.ACLRoleEvent:
		return map[string]any{"ACLRole": apiconv.ACLRoleFromStructs(v.ACLRole)}
	case *structs.ACLAuthMethodEvent:
		return map[string]any{"AuthMethod": apiconv.ACLAuthMethodFromStructs(v.AuthMethod)}
	case *structs.ACLBindingRuleEvent:
		return map[string]any{"ACLBindingRule": apiconv.ACLBindingRuleFromStructs(v.BindingRule)}
	}
	return map[string]any{}
}
