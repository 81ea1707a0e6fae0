package command

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"
)

func init() { register("event stream", eventStreamCmd) }

// topicFlags collects repeated -topic Topic[:key] values.
type topicFlags []string

func (t *topicFlags) String() string     { return strings.Join(*t, ",") }
func (t *topicFlags) Set(v string) error { *t = append(*t, v); return nil }

func eventStreamCmd() *cmd {
	var topics topicFlags
	var index uint64
	var count int
	var asJSON bool
	c := &cmd{
		Name: "event stream", MaxArgs: 0,
		Synopsis: "Follow the cluster's event stream",
		Help: "Prints events from /v1/event/stream as they happen, one line each\n" +
			"(index, topic, type, key), or the raw JSON with -json. -topic takes\n" +
			"Topic or Topic:key (Job, Evaluation, Allocation, Deployment, Node,\n" +
			"or * for all) and may be repeated; -namespace '*' covers every\n" +
			"namespace. Eval quasi-status steps (EvaluationScheduling,\n" +
			"EvaluationApplying, EvaluationDelayed) name the worker.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.Var(&topics, "topic", "Topic or Topic:key to follow (repeatable; default every topic).")
		fs.Uint64Var(&index, "index", 0, "Start at this raft index (0: the oldest retained event).")
		fs.IntVar(&count, "n", 0, "Stop after this many events (0: follow until interrupted).")
		fs.BoolVar(&asJSON, "json", false, "Print each event as JSON.")
	}
	c.Run = func(e *env, _ []string) error {
		wanted, err := parseTopicFlags(topics)
		if err != nil {
			return err
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ch, err := cl.EventStream().Stream(ctx, wanted, index, e.query())
		if err != nil {
			return apiError("opening the event stream", err)
		}
		seen := 0
		for batch := range ch {
			if batch.Err != nil {
				return errorf("event stream: %v", batch.Err)
			}
			for _, ev := range batch.Events {
				if err := e.printEvent(ev, asJSON); err != nil {
					return err
				}
				if seen++; count > 0 && seen >= count {
					return nil
				}
			}
		}
		return nil
	}
	return c
}

func parseTopicFlags(values []string) (map[api.Topic][]string, error) {
	out := map[api.Topic][]string{}
	for _, v := range values {
		name, key, _ := strings.Cut(v, ":")
		if name == "" {
			return nil, errorf("-topic %q: empty topic name", v)
		}
		if key == "" {
			key = "*"
		}
		out[api.Topic(name)] = append(out[api.Topic(name)], key)
	}
	return out, nil
}

func (e *env) printEvent(ev api.Event, asJSON bool) error {
	if asJSON {
		b, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	line := fmt.Sprintf("%d\t%s\t%s\t%s", ev.Index, ev.Topic, ev.Type, ev.Key)
	if step, ok := ev.Payload["Step"].(map[string]any); ok {
		if w, _ := step["Worker"].(string); w != "" {
			line += "\tworker=" + w
		}
	}
	fmt.Fprintln(e.stdout, line)
	return nil
}
