package drivers

import (
	"context"
	"testing"
)

func TestExitWaiterFansOut(t *testing.T) {
	w := NewExitWaiter()
	a, b := w.Chan(context.Background()), w.Chan(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	c := w.Chan(ctx)
	cancel()
	if _, ok := <-c; ok {
		t.Fatal("canceled waiter received a result")
	}
	w.Set(&ExitResult{ExitCode: 1})
	w.Set(&ExitResult{ExitCode: 2}) // ignored
	if r := <-a; r.ExitCode != 1 {
		t.Fatalf("a = %+v", r)
	}
	if r := <-b; r.ExitCode != 1 {
		t.Fatalf("b = %+v", r)
	}
	if r := <-w.Chan(context.Background()); r.ExitCode != 1 {
		t.Fatalf("late waiter = %+v", r)
	}
}
