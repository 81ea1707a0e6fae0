package agent

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/fsm"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// holdingSink holds the FSM inside Apply at the first entry that writes
// an eval, until release. It replaces the leader's sink: the agent is
// shutting down, nothing needs the evals routed.
type holdingSink struct {
	once    sync.Once
	held    chan struct{}
	release chan struct{}
}

func (h *holdingSink) EvalsWritten([]*structs.Evaluation, string) {
	h.once.Do(func() {
		close(h.held)
		<-h.release
	})
}

func (h *holdingSink) CapacityChanged(*structs.Node, uint64) {}

var _ fsm.EvalSink = (*holdingSink)(nil)

// Shutdown is bounded by its context (issue 27: SIGTERM must end the agent
// within 10 s): when the server cannot finish stopping in time (here raft
// waits for an FSM held inside an entry), Shutdown returns anyway with an
// error naming what it still waited for, and the agent command exits.
// Before, it waited for the server for as long as that took.
func TestShutdown_BoundedByItsContext(t *testing.T) {
	a, c := testAgent(t, nil)
	srv := a.Server()
	sink := &holdingSink{held: make(chan struct{}), release: make(chan struct{})}
	srv.FSM().SetEvalSink(sink)
	var releaseOnce sync.Once
	t.Cleanup(func() { releaseOnce.Do(func() { close(sink.release) }) }) // before the agent's own cleanup

	go func() { // its answer does not matter: a 503 once the agent stops
		job := api.NewServiceJob("held", "held", "global", 50)
		task := api.NewTask("t", "raw_exec")
		task.Config = map[string]any{"command": "/bin/true"}
		job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
		_, _, _ = c.Jobs().Register(job, nil)
	}()
	testutil.WaitFor(t, 10*time.Second, "the FSM to hold the job's entry", func() bool {
		select {
		case <-sink.held:
			return true
		default:
			return false
		}
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Shutdown(ctx) }()
	testutil.WaitFor(t, 10*time.Second, "the server to be left with raft's shutdown", func() (bool, string) {
		w := srv.Waiting()
		return len(w) == 0, strings.Join(w, ", ")
	})
	cancel() // the bound passes
	var err error
	testutil.WaitFor(t, 10*time.Second, "Shutdown to return once its context ended", func() bool {
		select {
		case err = <-done:
			return true
		default:
			return false
		}
	})
	if err == nil || !strings.Contains(err.Error(), "still waiting for server (raft)") {
		t.Fatalf("Shutdown past its bound: %v, want an error naming the server's raft", err)
	}
}
