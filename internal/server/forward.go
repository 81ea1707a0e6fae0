package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/rpcwire"
	"github.com/drover-project/drover/internal/structs"
)

// forwardHoldTimeout is how long a request waits for a leader (an election
// in progress) or for this server to catch up before it answers 503.
const forwardHoldTimeout = 5 * time.Second

// forward decides which server answers a call of a method routed to the
// leader (Method.Call, after the caller's token passed the method's rule):
//
//   - a write is answered by the leader: a follower sends it to the leader
//     over RPC under the method's wire name, fills reply with the leader's
//     answer and returns done=true;
//   - a read is answered by the leader too, unless args.AllowStaleRead(),
//     then by this server from its own state (the reply's QueryMeta says
//     how stale: LastContact, KnownLeader);
//   - when the request must go to the leader and there is none, done=true
//     with ErrNoLeader (HTTP 503), never a partial local answer;
//   - a server answers nothing locally before it has replayed the raft log
//     it had at start (a leader: before its barrier has applied);
//   - done=false means this server answers: the handler runs.
func (s *Server) forward(ctx context.Context, m *spec, args structs.RPCInfo, reply any) (bool, error) {
	method, isRead := m.name, m.kind == read
	if isRead && args.AllowStaleRead() {
		if err := s.waitReplayed(ctx); err != nil {
			return true, err
		}
		return false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, forwardHoldTimeout)
	defer cancel()
	for {
		leader, err := s.awaitLeader(ctx)
		if err != nil {
			return true, err
		}
		if leader == "" { // this server leads
			return false, nil
		}
		err = s.cluster.PeerRPC(ctx, leader, method, args, reply)
		if err == nil || isAnswer(err) {
			return true, err
		}
		// The connection to the leader broke. A read, or a call that never
		// reached it, is safe to retry once a leader is known again; a
		// write may have committed, so say so.
		var dialErr *rpcwire.DialError
		if !isRead && !errors.As(err, &dialErr) {
			return true, &CodedError{Code: http.StatusServiceUnavailable,
				Msg: fmt.Sprintf("%v: forwarding %s to the leader at %s failed (the write may or may not have applied): %v", ErrNoLeader, method, leader, err)}
		}
		select {
		case <-ctx.Done():
			return true, noLeaderError(err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// isAnswer reports whether err came back from the remote endpoint (as
// opposed to a broken connection).
func isAnswer(err error) bool {
	var coded *rpcwire.CodedError
	return errors.As(err, &coded) || rpcwire.IsServerError(err)
}

// awaitLeader waits (bounded by ctx) until a leader is known. It returns
// the leader's rpc address, or "" when this server leads and is ready to
// answer (its leadership barrier has applied).
func (s *Server) awaitLeader(ctx context.Context) (string, error) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if s.raft.State() == raft.Leader {
			if s.readyIndex.Load() > 0 {
				return "", nil
			}
		} else if addr, id := s.raft.LeaderWithID(); addr != "" && string(id) != s.nodeID {
			return s.rpcAddrOf(string(id), string(addr)), nil
		}
		select {
		case <-ctx.Done():
			return "", noLeaderError(ctx.Err())
		case <-s.shutdownCh:
			return "", ErrShutdown
		case <-tick.C:
		}
	}
}

// rpcAddrOf is the rpc address of raft server id: what it gossips now,
// else its address in the raft configuration.
func (s *Server) rpcAddrOf(id, raftAddr string) string {
	if s.cluster != nil {
		if m, ok := s.cluster.ServerByID(id); ok {
			return m.RPCAddr
		}
	}
	return raftAddr
}

// waitReplayed waits (bounded) until the FSM has applied the raft log this
// server had when it started, so a restarted server never answers from a
// partial state.
func (s *Server) waitReplayed(ctx context.Context) error {
	if s.replayed() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, forwardHoldTimeout)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !s.replayed() {
		select {
		case <-ctx.Done():
			return &CodedError{Code: http.StatusServiceUnavailable,
				Msg: fmt.Sprintf("server has not yet applied the raft log it had at start (up to index %d, applied %d); try again or read from another server", s.startIndex, s.State().LatestIndex())}
		case <-s.shutdownCh:
			return ErrShutdown
		case <-tick.C:
		}
	}
	return nil
}

// replayed reports whether the FSM (not just raft, which counts entries
// handed to the FSM) has applied the log this server had at start.
func (s *Server) replayed() bool {
	done, cancel := context.WithCancel(context.Background())
	cancel() // WaitForIndex then only checks
	return s.fsm.WaitForIndex(done, s.startIndex) == nil
}

func noLeaderError(cause error) error {
	return &CodedError{Code: http.StatusServiceUnavailable,
		Msg: fmt.Sprintf("%v: no leader elected within %s (%v); the cluster may have lost quorum", ErrNoLeader, forwardHoldTimeout, cause)}
}
