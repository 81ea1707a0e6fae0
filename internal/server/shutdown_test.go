package server

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/fsm"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// shutdownBound is how long Shutdown may take (issue 27: a SIGTERM'd
// leader must be gone within 10 s).
const shutdownBound = 10 * time.Second

// shutdownWithin runs Shutdown and fails the test when it has not returned
// within shutdownBound, naming the goroutines still running.
func shutdownWithin(t *testing.T, s *Server) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Shutdown() }()
	var err error
	testutil.WaitFor(t, shutdownBound, "Shutdown to return", func() bool {
		select {
		case err = <-done:
			return true
		default:
			return false
		}
	})
	if err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// A leader under load (jobs registering, workers scheduling, plans in the
// applier) shuts down within the bound, and every write answered OK
// before it is there after a restart from the same data dir.
func TestShutdown_LeaderUnderLoad(t *testing.T) {
	dir := t.TempDir()
	s := testServer(t, dir)
	waitFor(t, s.LeaderActive)
	for i := range 20 {
		if _, err := s.RegisterNode(e2eNode(i, 4000, 8192)); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var writers sync.WaitGroup
	for w := range 4 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("load-%d-%d", w, i)
				if _, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: e2eJob(id, 3, 100, 64)}); err != nil {
					return // the server is going away
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
			}
		}()
	}
	testutil.WaitFor(t, 30*time.Second, "load: 60 jobs registered and allocs placed", func() (bool, string) {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		allocs, _ := s.State().Allocs(nil, "default")
		return n >= 60 && len(allocs) > 0, fmt.Sprintf("%d jobs", n)
	})
	shutdownWithin(t, s)
	close(stop)
	// Every write in flight is answered (an error for those raft had
	// not written yet), even for a caller whose context never ends.
	wrote := make(chan struct{})
	go func() { writers.Wait(); close(wrote) }()
	testutil.WaitFor(t, shutdownBound, "the writes in flight at shutdown to be answered", func() bool {
		select {
		case <-wrote:
			return true
		default:
			return false
		}
	})

	mu.Lock()
	want := append([]string(nil), acked...)
	mu.Unlock()
	s2 := testServer(t, dir)
	defer s2.Shutdown()
	waitFor(t, func() bool { return s2.State().LatestIndex() >= s2.startIndex })
	for _, id := range want {
		if job, _ := s2.State().JobByID(nil, "default", id); job == nil {
			t.Errorf("job %s was acknowledged but is lost after the restart", id)
		}
	}
}

// planGate passes what the FSM writes on to the leader's sink, but once
// armed holds the FSM inside Apply at the first entry that writes a
// plan's final eval (a complete eval): that plan's entry is committed and
// not applied until release, so its plan stays in the applier's pipeline.
type planGate struct {
	next     fsm.EvalSink
	armed    atomic.Bool
	held     chan struct{} // closed when an entry is held
	release  chan struct{}
	holdOnce sync.Once
}

func (g *planGate) EvalsWritten(evals []*structs.Evaluation, token string) {
	for _, e := range evals {
		if g.armed.Load() && e.Status == structs.EvalStatusComplete {
			g.holdOnce.Do(func() {
				close(g.held)
				<-g.release
			})
		}
	}
	g.next.EvalsWritten(evals, token)
}

func (g *planGate) CapacityChanged(n *structs.Node, index uint64) { g.next.CapacityChanged(n, index) }

// Shutdown does not wait for a plan whose entry raft has not applied:
// with the FSM held inside a plan's entry, every goroutine of the server
// (workers, the applier and the other leader duties, the RPC loops)
// returns, the plans in flight failed; only raft's own shutdown then waits
// for the FSM to finish the entry it is applying. Before, the applier
// waited for the entry's outcome, and Shutdown with it.
func TestShutdown_DoesNotWaitForPlansInRaft(t *testing.T) {
	dir := t.TempDir()
	s := testServer(t, dir)
	waitFor(t, s.LeaderActive)
	for i := range 4 {
		if _, err := s.RegisterNode(e2eNode(i, 4000, 8192)); err != nil {
			t.Fatal(err)
		}
	}
	gate := &planGate{next: s.leader.Sink(), held: make(chan struct{}), release: make(chan struct{})}
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(gate.release) }) }
	t.Cleanup(release) // a failed test lets the FSM go on
	s.fsm.SetEvalSink(gate)
	gate.armed.Store(true)
	// Register jobs until a plan's entry is held; a registration after
	// that waits for the FSM too, and is answered (503) at shutdown.
	var mu sync.Mutex
	var registered []string
	go func() {
		for i := 0; ; i++ {
			select {
			case <-gate.held:
				return
			default:
			}
			id := fmt.Sprintf("held-%d", i)
			if _, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: e2eJob(id, 2, 100, 64)}); err != nil {
				return
			}
			mu.Lock()
			registered = append(registered, id)
			mu.Unlock()
		}
	}()
	testutil.WaitFor(t, shutdownBound, "a plan's entry to be held", func() bool {
		select {
		case <-gate.held:
			return true
		default:
			return false
		}
	})

	done := make(chan error, 1)
	go func() { done <- s.Shutdown() }()
	testutil.WaitFor(t, shutdownBound, "every server goroutine to return while raft applies the held plan", func() (bool, string) {
		w := s.Waiting()
		return len(w) == 0, fmt.Sprintf("still waiting for %v", w)
	})
	release()
	testutil.WaitFor(t, shutdownBound, "Shutdown to return once the entry is applied", func() bool {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("shutdown: %v", err)
			}
			return true
		default:
			return false
		}
	})

	s2 := testServer(t, dir)
	defer s2.Shutdown()
	waitFor(t, func() bool { return s2.State().LatestIndex() >= s2.startIndex }) // replayed its log
	mu.Lock()
	defer mu.Unlock()
	for _, id := range registered {
		if job, _ := s2.State().JobByID(nil, "default", id); job == nil {
			t.Errorf("job %s was acknowledged but is lost after the restart", id)
		}
	}
}

// A server gaining leadership waits for raft's barrier (the FSM applying
// everything before it); a shutdown meanwhile ends that wait too. Before,
// the leadership monitor waited out the barrier, and Shutdown with it.
func TestShutdown_EndsTheLeadershipBarrierWait(t *testing.T) {
	s := testServer(t, "")
	waitFor(t, s.LeaderActive)
	sink := blockingSink{entered: make(chan struct{}), release: make(chan struct{})}
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(sink.release) }) }
	t.Cleanup(release)
	s.fsm.SetEvalSink(sink)
	go func() {
		_, _ = JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: testJob("held")})
	}()
	<-sink.entered // the FSM holds the job's entry

	s.StepLeadership(false)
	go s.StepLeadership(true) // establishing: the barrier waits for the held entry
	testutil.WaitFor(t, shutdownBound, "the leadership monitor to wait for the barrier", func() bool {
		return testutil.Parked("server.(*Server).establishLeadership(")
	})
	done := make(chan error, 1)
	go func() { done <- s.Shutdown() }()
	testutil.WaitFor(t, shutdownBound, "every server goroutine to return while the FSM holds the entry", func() (bool, string) {
		w := s.Waiting()
		return len(w) == 0, fmt.Sprintf("still waiting for %v", w)
	})
	release()
	testutil.WaitFor(t, shutdownBound, "Shutdown to return", func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
}
