package stream

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

func batch(index uint64, events ...structs.Event) *structs.Events {
	for i := range events {
		events[i].Index = index
	}
	return &structs.Events{Index: index, Events: events}
}

func jobEvent(ns, id string) structs.Event {
	return structs.Event{Topic: structs.TopicJob, Type: structs.TypeJobRegistered, Key: id, Namespace: ns}
}

func next(t *testing.T, s *Subscription) *structs.Events {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := s.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return b
}

func TestFilter(t *testing.T) {
	alloc := structs.Event{Topic: structs.TopicAllocation, Key: "a1", Namespace: "default", FilterKeys: []string{"web", "dep1"}}
	node := structs.Event{Topic: structs.TopicNode, Key: "n1"}
	webProd := jobEvent("prod", "web")
	web := jobEvent("default", "web")
	api := jobEvent("default", "api")
	cases := []struct {
		name   string
		topics map[structs.Topic][]string
		ns     string
		want   []string // keys kept
	}{
		{"all topics, default namespace", nil, "", []string{"a1", "n1", "web", "api"}},
		{"all namespaces", nil, "*", []string{"a1", "n1", "web", "web", "api"}},
		{"one namespace keeps nodes", nil, "prod", []string{"n1", "web"}},
		{"topic with key", map[structs.Topic][]string{structs.TopicJob: {"web"}}, "", []string{"web"}},
		{"topic without keys", map[structs.Topic][]string{structs.TopicJob: nil}, "", []string{"web", "api"}},
		{"star key", map[structs.Topic][]string{structs.TopicNode: {"*"}}, "", []string{"n1"}},
		{"filter key matches", map[structs.Topic][]string{structs.TopicAllocation: {"dep1"}}, "", []string{"a1"}},
		{"star topic with key", map[structs.Topic][]string{structs.TopicAll: {"web"}}, "*", []string{"a1", "web", "web"}},
		{"nothing", map[structs.Topic][]string{structs.TopicDeployment: {"*"}}, "", nil},
	}
	in := batch(7, alloc, node, webProd, web, api)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFilter(&structs.EventStreamRequest{Topics: c.topics, QueryOptions: structs.QueryOptions{Namespace: c.ns}})
			out := f.apply(in)
			var got []string
			if out != nil {
				for _, e := range out.Events {
					got = append(got, e.Key)
				}
				if out.Index != 7 {
					t.Fatalf("index %d", out.Index)
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("kept %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("kept %v, want %v", got, c.want)
				}
			}
		})
	}
	if len(in.Events) != 5 {
		t.Fatal("filter changed the published batch")
	}
}

func TestSubscribe_ResumesFromIndexAndWaits(t *testing.T) {
	b := New(4)
	for i := uint64(1); i <= 3; i++ {
		b.Publish(batch(i*10, jobEvent("default", "j")))
	}
	s := b.Subscribe(&structs.EventStreamRequest{Index: 15})
	if got := next(t, s).Index; got != 20 {
		t.Fatalf("resume at 15 started at %d, want 20", got)
	}
	if got := next(t, s).Index; got != 30 {
		t.Fatalf("got %d", got)
	}
	done := make(chan uint64)
	go func() { done <- next(t, s).Index }()
	b.Publish(batch(40, jobEvent("default", "j")))
	if got := <-done; got != 40 {
		t.Fatalf("waiting read got %d", got)
	}
}

func TestSubscribe_TooOldIndexStartsAtOldestRetained(t *testing.T) {
	b := New(2)
	for i := uint64(1); i <= 5; i++ {
		b.Publish(batch(i, jobEvent("default", "j")))
	}
	if got := next(t, b.Subscribe(&structs.EventStreamRequest{Index: 1})).Index; got != 4 {
		t.Fatalf("started at %d, want the oldest retained 4", got)
	}
	if b.LastIndex() != 5 {
		t.Fatalf("last index %d", b.LastIndex())
	}
}

// A size of zero or less means DefaultBufferSize: that many batches are
// retained, and the one before them is dropped.
func TestNew_NonPositiveSizeRetainsDefaultBufferSize(t *testing.T) {
	for _, size := range []int{0, -1} {
		b := New(size)
		for i := uint64(1); i <= DefaultBufferSize+1; i++ {
			b.Publish(batch(i, jobEvent("default", "j")))
		}
		if got := next(t, b.Subscribe(&structs.EventStreamRequest{Index: 1})).Index; got != 2 {
			t.Fatalf("New(%d): oldest retained is %d, want 2", size, got)
		}
	}
}

// Once the ring has wrapped, a subscription starts at the first retained
// batch at or after its index, and LastIndex is the newest batch.
func TestSubscribe_StartsWithinAWrappedRing(t *testing.T) {
	b := New(3)
	for i := uint64(1); i <= 7; i++ { // retains 5, 6 and 7
		b.Publish(batch(i, jobEvent("default", "j")))
	}
	if got := b.LastIndex(); got != 7 {
		t.Fatalf("last index %d, want 7", got)
	}
	for _, c := range []struct{ index, first uint64 }{{1, 5}, {5, 5}, {6, 6}, {7, 7}} {
		if got := next(t, b.Subscribe(&structs.EventStreamRequest{Index: c.index})).Index; got != c.first {
			t.Fatalf("subscribed at %d, first batch %d, want %d", c.index, got, c.first)
		}
	}
	ahead := b.Subscribe(&structs.EventStreamRequest{Index: 8})
	b.Publish(batch(8, jobEvent("default", "j")))
	if got := next(t, ahead).Index; got != 8 {
		t.Fatalf("subscribed ahead at 8, first batch %d", got)
	}
}

// A subscriber that has read everything gets nothing more until the next
// publish: not the slot past the newest batch, which on a full ring holds
// the oldest one.
func TestSubscribe_CaughtUpGetsOnlyNewBatches(t *testing.T) {
	b := New(2)
	for i := uint64(1); i <= 3; i++ {
		b.Publish(batch(i, jobEvent("default", "j")))
	}
	s := b.Subscribe(&structs.EventStreamRequest{Index: 3})
	if got := next(t, s).Index; got != 3 {
		t.Fatalf("first batch %d, want 3", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := s.Next(ctx); got != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("caught-up Next = %v, %v; want nothing until a publish", got, err)
	}
	b.Publish(batch(4, jobEvent("default", "j")))
	if got := next(t, s).Index; got != 4 {
		t.Fatalf("after a publish got %d, want 4", got)
	}
}

func TestSlowSubscriberIsDroppedNotWaitedFor(t *testing.T) {
	b := New(2)
	s := b.Subscribe(&structs.EventStreamRequest{})
	for i := uint64(1); i <= 3; i++ {
		b.Publish(batch(i, jobEvent("default", "j"))) // never blocks
	}
	if _, err := s.Next(context.Background()); !errors.Is(err, ErrSubscriptionDropped) {
		t.Fatalf("err %v, want ErrSubscriptionDropped", err)
	}
}

func TestClosedBrokerEndsSubscriptions(t *testing.T) {
	b := New(2)
	s := b.Subscribe(&structs.EventStreamRequest{})
	b.Close()
	if _, err := s.Next(context.Background()); !errors.Is(err, ErrBrokerClosed) {
		t.Fatalf("err %v", err)
	}
}

func BenchmarkPublish(b *testing.B) {
	br := New(DefaultBufferSize)
	ev := batch(1, jobEvent("default", "j"))
	for i := 0; i < b.N; i++ {
		br.Publish(ev)
	}
}

// A subscription passes over batches its filter drops entirely, however
// many lie between the ones it matches, and goes on from there.
func TestSubscribe_SkipsBatchesTheFilterDrops(t *testing.T) {
	b := New(8)
	for _, ns := range []string{"other", "default", "other", "other", "default"} {
		b.Publish(batch(b.LastIndex()+10, jobEvent(ns, "j")))
	}
	s := b.Subscribe(&structs.EventStreamRequest{})
	if got := next(t, s).Index; got != 20 {
		t.Fatalf("first match at %d, want 20", got)
	}
	if got := next(t, s).Index; got != 50 {
		t.Fatalf("second match at %d, want 50", got)
	}
	b.Publish(batch(60, jobEvent("other", "j")))
	b.Publish(batch(70, jobEvent("default", "j")))
	if got := next(t, s).Index; got != 70 {
		t.Fatalf("match after a new dropped batch at %d, want 70", got)
	}
}
