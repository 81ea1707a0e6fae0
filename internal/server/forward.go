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
//
// The whole forward, waiting for a leader included, is bounded by
// Config.ForwardTimeout, and connecting to the leader by
// Config.PeerDialTimeout. While a call is in flight, raft's view of the
// leader is watched (Cluster.LeaderChanged): when the leader is no longer
// the one called (a partition cut it off and this server stopped hearing
// from it, or another was elected), the call is abandoned after a short
// grace (leaderMovedGrace: a leader that transferred its place still
// answers) rather than waiting on a leader that may never answer. A read then goes to the
// new leader; so does a write that never reached the old one (its dial
// had not finished); a write that may have reached it answers 503 saying
// it may or may not have applied.
func (s *Server) forward(ctx context.Context, m *spec, args structs.RPCInfo, reply any) (bool, error) {
	method, isRead := m.name, m.kind == read
	if isRead && args.AllowStaleRead() {
		if err := s.waitReplayed(ctx); err != nil {
			return true, err
		}
		return false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.config.ForwardTimeout)
	defer cancel()
	for {
		// Taken before the leader is read: a change after it closes it.
		moved := s.cluster.LeaderChanged()
		leader, leaderID, err := s.awaitLeader(ctx)
		if err != nil {
			return true, err
		}
		if leader == "" { // this server leads
			return false, nil
		}
		err = s.callLeader(ctx, moved, leader, leaderID, method, args, reply)
		if err == nil || isAnswer(err) {
			return true, err
		}
		// The connection to the leader broke, or the leader changed under
		// the call. A read, or a call that never reached it, is safe to
		// retry once a leader is known again; a write may have committed,
		// so say so.
		var dialErr *rpcwire.DialError
		if !isRead && !errors.As(err, &dialErr) {
			return true, &CodedError{Code: http.StatusServiceUnavailable,
				Msg: fmt.Sprintf("%v: forwarding %s to the leader at %s failed (the write may or may not have applied): %v", ErrNoLeader, method, leader, err)}
		}
		if errors.Is(err, errLeaderMoved) {
			continue // awaitLeader waits for the new one
		}
		select {
		case <-ctx.Done():
			return true, noLeaderError(s.config.ForwardTimeout, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// errLeaderMoved ends a forwarded call whose leader lost its place.
var errLeaderMoved = errors.New("the leader changed while the call was in flight")

// leaderMovedGrace is how long a call in flight to a leader that lost its
// place may still answer before it is abandoned: a leader that hands its
// place on (a leadership transfer, which it answers once done) is still
// reachable, whereas one cut off by a partition has been silent since the
// cut, well before this server noticed.
const leaderMovedGrace = 500 * time.Millisecond

// callLeader sends the call to the leader (raft ID leaderID, at addr) and
// abandons it when raft's view of the leader changes away from it; moved
// is LeaderChanged taken before the leader was read.
func (s *Server) callLeader(ctx context.Context, moved <-chan struct{}, addr, leaderID, method string, args, reply any) error {
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		for {
			select {
			case <-callCtx.Done():
				return
			case <-moved:
				moved = s.cluster.LeaderChanged()
				if _, id := s.raft.LeaderWithID(); string(id) == leaderID {
					continue
				}
				select {
				case <-callCtx.Done():
					return
				case <-time.After(leaderMovedGrace):
				}
				if _, id := s.raft.LeaderWithID(); string(id) != leaderID {
					cancel(errLeaderMoved)
					return
				}
			}
		}
	}()
	err := s.cluster.PeerRPC(callCtx, addr, method, args, reply)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(callCtx), errLeaderMoved) {
		return fmt.Errorf("%w: %w", errLeaderMoved, err)
	}
	return err
}

// isAnswer reports whether err came back from the remote endpoint (as
// opposed to a broken connection).
func isAnswer(err error) bool {
	var coded *rpcwire.CodedError
	return errors.As(err, &coded) || rpcwire.IsServerError(err)
}

// awaitLeader waits (bounded by ctx) until a leader is known. It returns
// the leader's rpc address and raft ID, or "" when this server leads and
// is ready to answer (its leadership barrier has applied).
func (s *Server) awaitLeader(ctx context.Context) (addr, id string, err error) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if s.raft.State() == raft.Leader {
			if s.readyIndex.Load() > 0 {
				return "", "", nil
			}
		} else if addr, id := s.raft.LeaderWithID(); addr != "" && string(id) != s.nodeID {
			return s.rpcAddrOf(string(id), string(addr)), string(id), nil
		}
		select {
		case <-ctx.Done():
			return "", "", noLeaderError(s.config.ForwardTimeout, ctx.Err())
		case <-s.shutdownCh:
			return "", "", ErrShutdown
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
	if s.AnswersStaleReads() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.config.ForwardTimeout)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !s.AnswersStaleReads() {
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

// AnswersStaleReads reports whether this server answers a stale read
// from its own state now (forward), without waiting: the FSM (not just
// raft, which counts entries handed to the FSM) has applied the log this
// server had at start. Once true it stays true.
func (s *Server) AnswersStaleReads() bool {
	done, cancel := context.WithCancel(context.Background())
	cancel() // WaitForIndex then only checks
	return s.fsm.WaitForIndex(done, s.startIndex) == nil
}

func noLeaderError(within time.Duration, cause error) error {
	return &CodedError{Code: http.StatusServiceUnavailable,
		Msg: fmt.Sprintf("%v: no leader elected within %s (%v); the cluster may have lost quorum", ErrNoLeader, within, cause)}
}
