package server

import (
	"errors"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// StepLeadership feeds a leadership change to the leadership monitor, as
// raft would, and waits until the monitor has handled it: stepping down
// disables and flushes the broker, blocked tracker and plan queue; stepping
// up rebuilds them from the state store. The simulator uses it to inject a
// leader change (raft itself stays leader, so writes keep working).
func (s *Server) StepLeadership(leader bool) {
	s.drainSettled() // earlier changes nobody waited for
	select {
	case s.leadershipOverride <- leader:
	case <-s.shutdownCh:
		return
	}
	for {
		select {
		case got := <-s.leadershipSettled:
			if got == leader {
				return
			}
		case <-s.shutdownCh:
			return
		}
	}
}

// LeaderActive reports whether this server's leader duties are running
// (the broker, blocked tracker and plan queue are enabled).
func (s *Server) LeaderActive() bool { return s.leader.Active() }

func (s *Server) drainSettled() {
	for {
		select {
		case <-s.leadershipSettled:
		default:
			return
		}
	}
}

// RegisterNode registers a node that no client agent runs: unlike
// Node.Register it arms no heartbeat timer, so the node stays ready until
// told otherwise. Benchmarks and tests that drive nodes in-process use it.
func (s *Server) RegisterNode(node *structs.Node) (*structs.NodeWriteResponse, error) {
	return (&NodeEndpoint{srv: s}).upsertNode(node)
}

// AwaitLeadership waits until the leadership monitor has established this
// server as leader (its broker, tracker, plan queue and, with manual
// duties, the stepped duties are ready), or the timeout passes.
func (s *Server) AwaitLeadership(timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case leading := <-s.leadershipSettled:
			if leading && s.LeaderActive() {
				return nil
			}
		case <-deadline.C:
			return errors.New("server: leadership not established")
		case <-s.shutdownCh:
			return ErrShutdown
		}
	}
}
