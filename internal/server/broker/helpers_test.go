package broker

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

var t0 = time.Unix(1_700_000_000, 0)

// seqTokens returns deterministic tokens, as the simulator would inject.
func seqTokens() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("tok-%d", n) }
}

func newTestBroker(t testing.TB) (*Broker, *clock.Manual) {
	t.Helper()
	clk := clock.NewManual(t0)
	b := New(Config{NewToken: seqTokens()}, clk)
	b.SetEnabled(true)
	return b, clk
}

func mkEval(id, typ, job string, prio int, index uint64) *structs.Evaluation {
	return &structs.Evaluation{
		ID: id, Namespace: "default", Type: typ, JobID: job, Priority: prio,
		Status: structs.EvalStatusPending, CreateIndex: index, ModifyIndex: index,
	}
}

// tryDequeue is one non-blocking step: Dequeue with a done context, where
// "nothing ready" is (nil, "", nil).
func tryDequeue(b *Broker, scheds []string) (*structs.Evaluation, string, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e, tok, err := b.Dequeue(ctx, scheds)
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return e, tok, err
}

func mustDequeue(t *testing.T, b *Broker, scheds ...string) (*structs.Evaluation, string) {
	t.Helper()
	e, tok, err := tryDequeue(b, scheds)
	if err != nil || e == nil {
		t.Fatalf("Dequeue(%v) = %v, %q, %v; want an eval", scheds, e, tok, err)
	}
	return e, tok
}

func mustNotDequeue(t *testing.T, b *Broker, scheds ...string) {
	t.Helper()
	if e, _, err := tryDequeue(b, scheds); e != nil || err != nil {
		t.Fatalf("Dequeue(%v) = %v, %v; want nothing", scheds, e, err)
	}
}

func dequeueIDs(t *testing.T, b *Broker, scheds ...string) []string {
	t.Helper()
	var ids []string
	for {
		e, _, err := tryDequeue(b, scheds)
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			return ids
		}
		ids = append(ids, e.ID)
	}
}

func wantStats(t *testing.T, b *Broker, ready, unacked, waiting, pending, cancelable int) {
	t.Helper()
	s := b.Stats()
	got := [5]int{s.TotalReady, s.TotalUnacked, s.TotalWaiting, s.TotalPending, s.TotalCancelable}
	want := [5]int{ready, unacked, waiting, pending, cancelable}
	if got != want {
		t.Fatalf("stats ready/unacked/waiting/pending/cancelable = %v, want %v", got, want)
	}
}

func (b *Broker) numWaiters() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.waiters)
}

// waitFor is testutil.WaitFor with this package's usual deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.WaitFor(t, 5*time.Second, what, cond)
}

type dequeueResult struct {
	eval  *structs.Evaluation
	token string
	err   error
}

func recvResult(t *testing.T, ch <-chan dequeueResult) dequeueResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("blocked dequeue did not return")
		return dequeueResult{}
	}
}
