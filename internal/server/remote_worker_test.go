package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// heldPipeline is a pipeline whose own workers take no service evals, so
// a registered job's eval waits in the broker for a remote dequeue.
func heldPipeline(t *testing.T) *pipeline {
	return newPipeline(t, 1, func(*structs.Evaluation, scheduler.State, scheduler.Planner) error { return nil },
		func(c *Config) { c.EnabledSchedulers = []string{"none"} })
}

// remoteDequeue is what a follower's worker asks the leader for: a
// service eval, on behalf of run bootID of server serverID.
func remoteDequeue(t *testing.T, s *Server, serverID, bootID string, timeout time.Duration) *structs.Evaluation {
	t.Helper()
	reply, err := EvalDequeue.Call(context.Background(), s, &structs.EvalDequeueRequest{
		Schedulers: []string{structs.JobTypeService}, Timeout: timeout, ServerID: serverID, BootID: bootID})
	if err != nil {
		t.Fatalf("dequeue for %s/%s: %v", serverID, bootID, err)
	}
	return reply.Eval
}

func outstanding(s *Server, evalID string) bool {
	_, ok := s.broker.Outstanding(evalID)
	return ok
}

// TestEvalDequeue_LeaderGivesBackAFailedServersEvals: the leader records
// which server's workers hold an eval they dequeued over RPC, so when
// that server fails its evals go back to the broker at once instead of
// waiting out the nack timeout.
func TestEvalDequeue_LeaderGivesBackAFailedServersEvals(t *testing.T) {
	p := heldPipeline(t)
	evalID := p.register(mock.Job("web"))
	if got := remoteDequeue(t, p.srv, "follower", "boot-1", 5*time.Second); got == nil || got.ID != evalID {
		t.Fatalf("dequeued %v, want eval %s", got, evalID)
	}
	// A dequeue that finds nothing records nothing.
	if got := remoteDequeue(t, p.srv, "follower", "boot-1", time.Millisecond); got != nil {
		t.Fatalf("dequeued %s from an empty broker", got.ID)
	}
	p.srv.nackHeld("other-server", "")
	if !outstanding(p.srv, evalID) {
		t.Fatal("another server's failure gave back the follower's eval")
	}
	p.srv.nackHeld("follower", "")
	if outstanding(p.srv, evalID) {
		t.Fatal("the failed follower's eval is still outstanding")
	}
}

// TestEvalDequeue_RestartedServerGivesBackItsEarlierRunsEvals: a server's
// first dequeue after a restart (a new boot ID) gives back the evals its
// previous run held, whose workers are gone with the old process; more
// dequeues of the same run give back nothing.
func TestEvalDequeue_RestartedServerGivesBackItsEarlierRunsEvals(t *testing.T) {
	p := heldPipeline(t)
	evalID := p.register(mock.Job("web"))
	if got := remoteDequeue(t, p.srv, "follower", "boot-1", 5*time.Second); got == nil || got.ID != evalID {
		t.Fatalf("dequeued %v, want eval %s", got, evalID)
	}
	remoteDequeue(t, p.srv, "follower", "boot-1", time.Millisecond)
	if !outstanding(p.srv, evalID) {
		t.Fatal("a second dequeue of the same run gave back its eval")
	}
	// The nacked eval waits out the broker's nack delay on the manual
	// clock, so the restarted run's dequeue finds nothing yet.
	if got := remoteDequeue(t, p.srv, "follower", "boot-2", time.Millisecond); got != nil {
		t.Fatalf("dequeued %s during the nack delay", got.ID)
	}
	if outstanding(p.srv, evalID) {
		t.Fatal("the restarted server's earlier run still holds its eval")
	}
}

// startClusterServer starts a server with raft and RPC on a loopback
// listener and gossip on loopback, joining join (a serf address) if set.
// bootstrapExpect 1 forms a cluster of one at once; 0 waits to be added
// by a leader.
func startClusterServer(t *testing.T, name string, bootstrapExpect int, join []string, opt func(*Config)) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{
		NodeName: name, DataDir: t.TempDir(), BootstrapExpect: bootstrapExpect, NumSchedulers: 1,
		RaftAddr: ln.Addr().String(), RaftNetwork: true,
		RaftTimings: &RaftTimings{Heartbeat: 200 * time.Millisecond, Election: 200 * time.Millisecond, LeaderLease: 100 * time.Millisecond, Commit: 5 * time.Millisecond},
		Serf:        &SerfConfig{BindAddr: "127.0.0.1", RetryJoin: join, RetryInterval: 100 * time.Millisecond, Fast: true},
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if opt != nil {
		opt(cfg)
	}
	s, err := New(cfg)
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown() })
	if err := s.ServeRPC(ln); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFollowerWorker_SchedulesThroughTheLeader: a follower's worker takes
// evals from the leader's broker over RPC, schedules them on its own
// replicated state and sends the plan and the eval's status back. The
// leader's own worker takes only batch evals here, so the service job can
// only be placed by the follower.
func TestFollowerWorker_SchedulesThroughTheLeader(t *testing.T) {
	leader := startClusterServer(t, "leader", 1, nil, func(c *Config) { c.EnabledSchedulers = []string{structs.JobTypeBatch} })
	waitFor(t, func() bool { return leader.IsLeader() && leader.LeaderActive() })
	follower := startClusterServer(t, "follower", 0, []string{leader.SerfAddr()}, nil)
	testutil.WaitFor(t, 20*time.Second, "the follower to follow the leader", func() (bool, string) {
		return follower.Leader() == leader.config.RaftAddr, "follower's leader " + follower.Leader()
	})

	n := pipelineNode("n1", 4000, 4096)
	if _, err := leader.raftApply(context.Background(), structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: n}); err != nil {
		t.Fatal(err)
	}
	reply, err := JobRegister.Call(context.Background(), leader, &structs.JobRegisterArgs{Job: mock.Job("web")})
	if err != nil {
		t.Fatal(err)
	}
	var eval *structs.Evaluation
	testutil.WaitFor(t, 20*time.Second, "the eval to complete", func() (bool, string) {
		eval, _ = leader.State().EvalByID(nil, reply.EvalID)
		return eval != nil && eval.Status == structs.EvalStatusComplete, "status " + statusOf(eval)
	})
	allocs, err := leader.State().AllocsByJob(nil, structs.DefaultNamespace, "web", true)
	if err != nil || len(allocs) != 1 || allocs[0].NodeID != n.ID {
		t.Fatalf("allocs %v (%v), want one on %s", allocs, err, n.ID)
	}
	if got := follower.RemoteEvalsProcessed(); got == 0 {
		t.Fatal("the follower's worker took no eval from the leader")
	}
	finishedWithPlan(t, leader, follower, eval, allocs)
	if got := leader.RemoteEvalsProcessed(); got != 0 {
		t.Fatalf("the leader took %d evals over RPC", got)
	}

	// A follower's dequeue that ends without an eval (here its context
	// runs out while the leader's broker is empty) returns none.
	backend, err := follower.schedulingBackend()
	if _, remote := backend.(remoteBackend); err != nil || !remote {
		t.Fatalf("the follower's backend is %T (%v), want the leader's over RPC", backend, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if got, token, _, _ := backend.Dequeue(ctx, []string{structs.JobTypeService}); got != nil || token != "" {
		t.Fatalf("dequeued %v (token %q) from an empty broker", got, token)
	}
}

// TestFollowerWorker_TakesItsNextEvalWithThePlanResult: with evals
// waiting, a follower's worker gets its next eval in the reply to the plan
// that finished the previous one, and schedules it like a dequeued one.
func TestFollowerWorker_TakesItsNextEvalWithThePlanResult(t *testing.T) {
	leader := startClusterServer(t, "leader", 1, nil, func(c *Config) { c.EnabledSchedulers = []string{structs.JobTypeBatch} })
	waitFor(t, func() bool { return leader.IsLeader() && leader.LeaderActive() })
	if _, err := leader.raftApply(context.Background(), structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: pipelineNode("n1", 4000, 4096)}); err != nil {
		t.Fatal(err)
	}
	var evals []string
	for _, id := range []string{"a", "b", "c"} {
		reply, err := JobRegister.Call(context.Background(), leader, &structs.JobRegisterArgs{Job: mock.Job(id)})
		if err != nil {
			t.Fatal(err)
		}
		evals = append(evals, reply.EvalID)
	}
	// Only now a worker: all three evals wait in the leader's broker.
	follower := startClusterServer(t, "follower", 0, []string{leader.SerfAddr()}, nil)
	for _, id := range evals {
		testutil.WaitFor(t, 20*time.Second, "eval "+id+" to complete", func() (bool, string) {
			e, _ := leader.State().EvalByID(nil, id)
			return e != nil && e.Status == structs.EvalStatusComplete, "status " + statusOf(e)
		})
	}
	var handed uint64
	for _, w := range follower.workers {
		handed += w.handedNext.Load()
	}
	if handed == 0 {
		t.Fatal("the follower's worker dequeued every eval itself; none came with a plan result")
	}
	// The worker acks an eval after its completion is written, so the
	// leader lets go of the last one a moment after it reads complete.
	testutil.WaitFor(t, 10*time.Second, "the leader to release the follower's evals", func() (bool, string) {
		held := heldBy(leader, follower.nodeID)
		return len(held) == 0, fmt.Sprintf("the leader still records %v as held by the follower", held)
	})
}

// heldBy lists the evals the leader records as held by serverID's workers.
func heldBy(s *Server, serverID string) []string {
	s.remoteHeld.mu.Lock()
	defer s.remoteHeld.mu.Unlock()
	var out []string
	for id, h := range s.remoteHeld.evals {
		if h.serverID == serverID {
			out = append(out, id)
		}
	}
	return out
}

// TestEvalAckNack_LeaderForgetsWhatARemoteServerGaveBack: once a remote
// worker acks or nacks an eval, the leader no longer counts it as held by
// that server, so the record does not grow with every eval a follower
// processes, and the server's later failure gives back nothing it no
// longer holds.
func TestEvalAckNack_LeaderForgetsWhatARemoteServerGaveBack(t *testing.T) {
	for _, method := range []string{"Eval.Ack", "Eval.Nack"} {
		t.Run(method, func(t *testing.T) {
			p := heldPipeline(t)
			evalID := p.register(mock.Job("web"))
			reply, err := EvalDequeue.Call(context.Background(), p.srv, &structs.EvalDequeueRequest{
				Schedulers: []string{structs.JobTypeService}, Timeout: 5 * time.Second, ServerID: "follower", BootID: "boot-1"})
			if err != nil || reply.Eval == nil || reply.Eval.ID != evalID {
				t.Fatalf("dequeue = %+v, %v; want eval %s", reply, err, evalID)
			}
			if held := heldBy(p.srv, "follower"); len(held) != 1 || held[0] != evalID {
				t.Fatalf("held by the follower: %v, want %s", held, evalID)
			}
			args := &structs.EvalAckRequest{EvalID: evalID, Token: reply.Token}
			if method == "Eval.Ack" {
				_, err = EvalAck.Call(context.Background(), p.srv, args)
			} else {
				_, err = EvalNack.Call(context.Background(), p.srv, args)
			}
			if err != nil {
				t.Fatal(err)
			}
			if held := heldBy(p.srv, "follower"); len(held) != 0 {
				t.Fatalf("still held by the follower after %s: %v", method, held)
			}
		})
	}
}
