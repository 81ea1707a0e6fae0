package stream

import "github.com/drover-project/drover/internal/structs"

// filter selects events by topic, key and namespace, as Nomad's
// subscriptions do: a key matches the event's Key or any of its
// FilterKeys; "*" matches every topic or key; events without a namespace
// (nodes) pass any namespace filter.
type filter struct {
	topics    map[structs.Topic]map[string]bool // nil: every topic
	namespace string                            // "*" for all
}

func newFilter(req *structs.EventStreamRequest) filter {
	f := filter{namespace: req.Namespace}
	if f.namespace == "" {
		f.namespace = structs.DefaultNamespace
	}
	if len(req.Topics) == 0 {
		return f
	}
	f.topics = map[structs.Topic]map[string]bool{}
	for t, keys := range req.Topics {
		set := f.topics[t]
		if set == nil {
			set = map[string]bool{}
			f.topics[t] = set
		}
		if len(keys) == 0 {
			set["*"] = true
		}
		for _, k := range keys {
			set[k] = true
		}
	}
	return f
}

// apply returns the batch itself when every event matches, a copy with
// the matching events, or nil when none does.
func (f filter) apply(batch *structs.Events) *structs.Events {
	var kept []structs.Event
	for i, e := range batch.Events {
		if f.match(&e) {
			if kept != nil {
				kept = append(kept, e)
			}
			continue
		}
		if kept == nil {
			kept = append(make([]structs.Event, 0, len(batch.Events)), batch.Events[:i]...)
		}
	}
	switch {
	case kept == nil:
		return batch
	case len(kept) == 0:
		return nil
	}
	return &structs.Events{Index: batch.Index, Events: kept}
}

func (f filter) match(e *structs.Event) bool {
	if f.namespace != "*" && e.Namespace != "" && e.Namespace != f.namespace {
		return false
	}
	if f.topics == nil {
		return true
	}
	return f.keyMatches(f.topics[e.Topic], e) || f.keyMatches(f.topics[structs.TopicAll], e)
}

func (f filter) keyMatches(keys map[string]bool, e *structs.Event) bool {
	if keys == nil {
		return false
	}
	if keys["*"] || keys[e.Key] {
		return true
	}
	for _, k := range e.FilterKeys {
		if keys[k] {
			return true
		}
	}
	return false
}
