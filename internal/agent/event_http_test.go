package agent

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

// streamUntil reads a stream until want returns true for an event, and
// returns every event read; it fails after a deadline.
func streamUntil(t *testing.T, ch <-chan *api.Events, want func(api.Event) bool) []api.Event {
	t.Helper()
	var seen []api.Event
	deadline := time.After(10 * time.Second)
	for {
		select {
		case batch, ok := <-ch:
			if !ok {
				t.Fatalf("stream closed; saw %s", eventNames(seen))
			}
			if batch.Err != nil {
				t.Fatalf("stream error: %v", batch.Err)
			}
			for _, e := range batch.Events {
				seen = append(seen, e)
				if want(e) {
					return seen
				}
			}
		case <-deadline:
			t.Fatalf("event not seen; saw %s", eventNames(seen))
		}
	}
}

func eventNames(events []api.Event) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(string(e.Topic) + "/" + e.Type + "/" + e.Key + " ")
	}
	return b.String()
}

func isJob(id string) func(api.Event) bool {
	return func(e api.Event) bool { return e.Topic == api.TopicJob && e.Key == id }
}

func TestEventStream_TopicsKeysNamespaceAndResume(t *testing.T) {
	_, c := testAgent(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Only Job events of "web", in the default namespace.
	webOnly, err := c.EventStream().Stream(ctx, map[api.Topic][]string{api.TopicJob: {"web"}}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every evaluation, every namespace.
	allEvals, err := c.EventStream().Stream(ctx, map[api.Topic][]string{api.TopicEvaluation: {"*"}}, 0, &api.QueryOptions{Namespace: "*"})
	if err != nil {
		t.Fatal(err)
	}

	other := testAPIJob("other")
	if _, _, err := c.Jobs().Register(other, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Namespaces().Register(&api.Namespace{Name: "prod"}, nil); err != nil {
		t.Fatal(err)
	}
	prod := testAPIJob("web")
	prod.Namespace = pointer("prod")
	if _, _, err := c.Jobs().Register(prod, &api.WriteOptions{Namespace: "prod"}); err != nil {
		t.Fatal(err)
	}
	resp, _, err := c.Jobs().Register(testAPIJob("web"), nil)
	if err != nil {
		t.Fatal(err)
	}

	seen := streamUntil(t, webOnly, isJob("web"))
	if len(seen) != 1 {
		t.Fatalf("filtered stream delivered %s, want only Job/web in default", eventNames(seen))
	}
	job, err := seen[0].Job()
	if err != nil || job == nil || *job.ID != "web" || *job.Namespace != "default" || seen[0].Type != "JobRegistered" {
		t.Fatalf("job event %+v decoded to %+v, %v", seen[0], job, err)
	}
	if seen[0].Index != resp.JobModifyIndex {
		t.Errorf("event index %d, want the job's modify index %d", seen[0].Index, resp.JobModifyIndex)
	}

	evals := streamUntil(t, allEvals, func(e api.Event) bool { return e.Key == resp.EvalID })
	namespaces := map[string]bool{}
	for _, e := range evals {
		ev, err := e.Evaluation()
		if err != nil || ev == nil {
			t.Fatalf("evaluation payload of %s: %v", e.Key, err)
		}
		if e.Topic != api.TopicEvaluation {
			t.Fatalf("topic filter let %s through", e.Topic)
		}
		namespaces[ev.Namespace] = true
	}
	if !namespaces["prod"] || !namespaces["default"] {
		t.Errorf("namespace=* stream saw namespaces %v, want default and prod", namespaces)
	}

	// Resuming from the web job's index replays it (and nothing older).
	resumed, err := c.EventStream().Stream(ctx, map[api.Topic][]string{api.TopicJob: {"*"}}, resp.JobModifyIndex, nil)
	if err != nil {
		t.Fatal(err)
	}
	replay := streamUntil(t, resumed, isJob("web"))
	if len(replay) != 1 || replay[0].Index != resp.JobModifyIndex {
		t.Fatalf("resume at %d replayed %s", resp.JobModifyIndex, eventNames(replay))
	}
	// Index 1 starts at the oldest retained batch, before the first job.
	fromStart, err := c.EventStream().Stream(ctx, map[api.Topic][]string{api.TopicJob: nil}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first := streamUntil(t, fromStart, func(api.Event) bool { return true }); first[0].Key != "other" {
		t.Fatalf("from index 1 the first job event is %s, want other", first[0].Key)
	}
}

func TestEventStream_DeregisterAndBadTopic(t *testing.T) {
	_, c := testAgent(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, _, err := c.Jobs().Register(testAPIJob("web"), nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Jobs().Deregister("web", true, nil); err != nil {
		t.Fatal(err)
	}
	ch, err := c.EventStream().Stream(ctx, map[api.Topic][]string{api.TopicJob: {"web"}}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := streamUntil(t, ch, func(e api.Event) bool { return e.Type == "JobDeregistered" })
	job, deleted, err := seen[len(seen)-1].DeregisteredJob()
	if err != nil || job == nil || !deleted {
		t.Fatalf("purge event: job %v deleted %v err %v", job, deleted, err)
	}

	_, err = c.EventStream().Stream(ctx, map[api.Topic][]string{"Bogus": nil}, 0, nil)
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "topic") {
		t.Fatalf("unknown topic: err %v, want a 400 naming the topic", err)
	}
}

func TestEventStream_HeartbeatFrameIsEmptyObject(t *testing.T) {
	a, _ := testAgent(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+a.HTTPAddr()+"/v1/event/stream?topic=Deployment", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 3)
	if _, err := resp.Body.Read(buf); err != nil || string(buf) != "{}\n" {
		t.Fatalf("first frame %q (%v), want the {} heartbeat", buf, err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("content type %q", ct)
	}
}

func TestEventStream_EvalQuasiStatusStepsWithWorker(t *testing.T) {
	_, c := testAgent(t, func(cfg *config.Config) { cfg.Server.EnabledSchedulers = nil })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := c.EventStream().Stream(ctx, map[api.Topic][]string{api.TopicEvaluation: {"web"}}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, _, err := c.Jobs().Register(testAPIJob("web"), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := streamUntil(t, ch, func(e api.Event) bool { return e.Type == "EvaluationScheduling" && e.Key == resp.EvalID })
	step, ok := seen[len(seen)-1].Payload["Step"].(map[string]any)
	if !ok || step["Status"] != "scheduling" || !strings.HasPrefix(step["Worker"].(string), "worker-") {
		t.Fatalf("scheduling step payload %v, want the worker that took the eval", seen[len(seen)-1].Payload)
	}
	// The eval's stored outcome follows as an EvaluationUpdated event.
	streamUntil(t, ch, func(e api.Event) bool { return e.Type == "EvaluationUpdated" && e.Key == resp.EvalID })
}

func TestEventStream_NodePoolTopic(t *testing.T) {
	_, c := testAgent(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := c.NodePools().Register(&api.NodePool{Name: "gpu", Description: "GPUs"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.NodePools().Delete("gpu", nil); err != nil {
		t.Fatal(err)
	}
	ch, err := c.EventStream().Stream(ctx, map[api.Topic][]string{api.TopicNodePool: {"gpu"}}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := streamUntil(t, ch, func(e api.Event) bool { return e.Type == "NodePoolDeleted" })
	first := seen[0]
	pool, err := first.NodePool()
	if err != nil || first.Type != "NodePoolUpserted" || pool == nil || pool.Description != "GPUs" {
		t.Fatalf("first pool event: %+v pool %+v err %v", first, pool, err)
	}
}

// The applying step of an eval names the worker and the plan it submitted.
func TestEventStream_ApplyingStepNamesThePlan(t *testing.T) {
	a, c := testAgent(t, func(cfg *config.Config) { cfg.Server.EnabledSchedulers = nil })
	if _, err := a.Server().RegisterNode(simNode(1, 4000, 8192)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := c.EventStream().Stream(ctx, map[api.Topic][]string{api.TopicEvaluation: {"web"}}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	job := testAPIJob("web")
	job.TaskGroups[0].Count = pointer(1)
	resp, _, err := c.Jobs().Register(job, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := streamUntil(t, ch, func(e api.Event) bool { return e.Type == "EvaluationApplying" && e.Key == resp.EvalID })
	step, _ := seen[len(seen)-1].Payload["Step"].(map[string]any)
	if step["PlanID"] != resp.EvalID+"/plan-1" || !strings.HasPrefix(fmt.Sprint(step["Worker"]), "worker-") {
		t.Fatalf("applying step %v, want the worker and plan %s/plan-1", step, resp.EvalID)
	}
}

// TestEventStream_MalformedTopicIs400 sends topics that are not Nomad's
// Topic[:Key] through the official client (which writes Topic:Key per key)
// and checks each is a 400 naming the parameter, not an open stream.
func TestEventStream_MalformedTopicIs400(t *testing.T) {
	_, c := testAgent(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, tc := range []struct {
		name   string
		topics map[api.Topic][]string
	}{
		{"empty key", map[api.Topic][]string{api.TopicJob: {""}}},
		{"two colons", map[api.Topic][]string{api.TopicJob: {"web:extra"}}},
		{"empty topic", map[api.Topic][]string{"": {"web"}}},
		{"unknown topic", map[api.Topic][]string{"Jobs": {"*"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch, err := c.EventStream().Stream(ctx, tc.topics, 0, nil)
			if err == nil {
				t.Fatalf("stream opened (%v), want a 400", ch != nil)
			}
			if !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "topic") {
				t.Fatalf("err %v, want a 400 naming the topic", err)
			}
		})
	}
}
