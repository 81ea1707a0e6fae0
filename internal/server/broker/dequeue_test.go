package broker

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

func startDequeue(ctx context.Context, b *Broker, scheds ...string) <-chan dequeueResult {
	ch := make(chan dequeueResult, 1)
	go func() {
		e, tok, err := b.Dequeue(ctx, scheds)
		ch <- dequeueResult{e, tok, err}
	}()
	return ch
}

func TestBroker_BlockedDequeueWakesOnEnqueue(t *testing.T) {
	b, _ := newTestBroker(t)
	ch := startDequeue(context.Background(), b, "batch", "service")
	waitFor(t, "dequeuer to block", func() bool { return b.numWaiters() == 1 })
	b.Enqueue(mkEval("other-type", "system", "j0", 50, 1)) // not for this waiter
	b.Enqueue(mkEval("e", "service", "j1", 50, 2))
	r := recvResult(t, ch)
	if r.err != nil || r.eval == nil || r.eval.ID != "e" {
		t.Fatalf("got %+v", r)
	}
	if tok, _ := b.Outstanding("e"); tok != r.token {
		t.Fatalf("outstanding token %q, returned %q", tok, r.token)
	}
	if b.numWaiters() != 0 {
		t.Fatal("waiter not removed")
	}
}

func TestBroker_BlockedDequeueWakesWhenDelayedEvalIsDue(t *testing.T) {
	b, clk := newTestBroker(t)
	e := mkEval("e", "service", "j1", 50, 1)
	e.WaitUntil = t0.Add(time.Minute)
	b.Enqueue(e)
	ch := startDequeue(context.Background(), b, "service")
	waitFor(t, "dequeuer to block", func() bool { return b.numWaiters() == 1 })
	clk.Advance(time.Minute)
	if r := recvResult(t, ch); r.err != nil || r.eval == nil || r.eval.ID != "e" {
		t.Fatalf("got %+v", r)
	}
}

func TestBroker_BlockedDequeueStops(t *testing.T) {
	cases := []struct {
		name string
		stop func(b *Broker, cancel context.CancelFunc)
		want error
	}{
		{"ctx canceled", func(_ *Broker, cancel context.CancelFunc) { cancel() }, context.Canceled},
		{"broker disabled", func(b *Broker, _ context.CancelFunc) { b.SetEnabled(false) }, ErrNotEnabled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := newTestBroker(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch := startDequeue(ctx, b, "service")
			waitFor(t, "dequeuer to block", func() bool { return b.numWaiters() == 1 })
			tc.stop(b, cancel)
			r := recvResult(t, ch)
			if r.eval != nil || !errors.Is(r.err, tc.want) {
				t.Fatalf("got %+v, want %v", r, tc.want)
			}
			if b.numWaiters() != 0 {
				t.Fatal("waiter not removed")
			}
		})
	}
}

func TestBroker_DequeueReturnsReadyAtOnce(t *testing.T) {
	b, clk := newTestBroker(t)
	b.Enqueue(mkEval("e", "service", "j1", 50, 1))
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a done context still gets what is ready
	e, _, err := b.Dequeue(ctx, []string{"service"})
	if err != nil || e == nil {
		t.Fatalf("got %v %v", e, err)
	}
	if clk.Pending() != 1 { // just the nack timer
		t.Fatalf("pending timers %d", clk.Pending())
	}
	if e, _, err := b.Dequeue(ctx, []string{"service"}); e != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("nothing ready with a done context: got %v, %v; want context.Canceled", e, err)
	}
}

func TestBroker_Observer(t *testing.T) {
	b, clk := newTestBroker(t)
	var got []string
	b.SetObserver(func(id, status string, at time.Time) {
		got = append(got, id+":"+status+"@"+at.Sub(t0).String())
		b.Stats() // calling back into the broker must not deadlock
	})
	d := mkEval("d", "service", "j1", 50, 1)
	d.WaitUntil = t0.Add(time.Second)
	b.Enqueue(d)
	clk.Advance(time.Second)
	e, tok := mustDequeue(t, b, "service")
	b.Enqueue(mkEval("old", "service", "j1", 50, 2))
	b.Enqueue(mkEval("new", "service", "j1", 50, 3))
	if err := b.Nack(e.ID, tok); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	e, tok = mustDequeue(t, b, "service")
	if err := b.Ack(e.ID, tok); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"d:delayed@0s", "d:pending@1s", "d:scheduling@1s",
		"old:pending@1s", "new:pending@1s",
		"d:nacked@1s", "d:delayed@1s", "d:pending@2s", "d:scheduling@2s",
		"d:acked@2s", "old:cancelable@2s", "new:pending@2s",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("transitions\n got %v\nwant %v", got, want)
	}
}
