package drivers

import (
	"context"
	"sync"
)

// ExitWaiter holds a task's exit once it is known and fans it out to any
// number of waiters; drivers keep one per task.
type ExitWaiter struct {
	once sync.Once
	done chan struct{}
	res  *ExitResult
}

// NewExitWaiter returns a waiter with no result yet.
func NewExitWaiter() *ExitWaiter { return &ExitWaiter{done: make(chan struct{})} }

// Set records the result; only the first call counts.
func (w *ExitWaiter) Set(res *ExitResult) {
	w.once.Do(func() {
		w.res = res
		close(w.done)
	})
}

// Done is closed once the result is set.
func (w *ExitWaiter) Done() <-chan struct{} { return w.done }

// Result returns the result, or nil while the task runs.
func (w *ExitWaiter) Result() *ExitResult {
	select {
	case <-w.done:
		return w.res
	default:
		return nil
	}
}

// Exited reports whether the result is set.
func (w *ExitWaiter) Exited() bool { return w.Result() != nil }

// Chan implements Driver.Wait: the channel receives a copy of the result
// once, or is closed without one when ctx ends first.
func (w *ExitWaiter) Chan(ctx context.Context) <-chan *ExitResult {
	ch := make(chan *ExitResult, 1)
	go func() {
		defer close(ch)
		select {
		case <-w.done:
			r := *w.res
			ch <- &r
		case <-ctx.Done():
		}
	}()
	return ch
}
