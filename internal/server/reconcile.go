package server

import (
	"context"
	"time"

	"github.com/hashicorp/raft"
	"github.com/hashicorp/serf/serf"
)

// reconcileInterval is how often the leader re-checks every member even
// without a membership event.
const reconcileInterval = 30 * time.Second

// reconcileMembers is a leader duty: it keeps raft's configuration in step
// with gossip. Alive servers become raft peers (through autopilot, which
// promotes them to voters once stable) at their current address; servers
// that left are removed. Failed servers stay until they return or
// autopilot's dead-server cleanup (or force-leave) removes them.
func (s *Server) reconcileMembers(ctx context.Context) {
	if s.cluster == nil {
		return
	}
	for {
		s.reconcileOnce()
		select {
		case <-ctx.Done():
			return
		case <-s.cluster.reconcile:
		case <-time.After(reconcileInterval):
		}
	}
}

func (s *Server) reconcileOnce() {
	f := s.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		s.log.Warn("reconcile: read raft configuration", "error", err)
		return
	}
	current := f.Configuration().Servers
	for _, m := range s.cluster.servers() {
		switch m.Status {
		case serf.StatusAlive:
			s.addRaftPeer(m, current)
		case serf.StatusLeft:
			s.removeRaftPeer(m, current)
		}
	}
}

// addRaftPeer makes m a raft peer at its gossiped address, replacing a
// stale entry that holds the address under another ID.
func (s *Server) addRaftPeer(m serverMember, current []raft.Server) {
	for _, srv := range current {
		if string(srv.ID) == m.ID && string(srv.Address) == m.RPCAddr {
			return // already a peer, at the right address
		}
	}
	for _, srv := range current {
		if string(srv.Address) == m.RPCAddr && string(srv.ID) != m.ID {
			s.log.Info("reconcile: removing a stale raft peer that held a member's address", "id", srv.ID, "address", srv.Address)
			if err := s.raft.RemoveServer(srv.ID, 0, 0).Error(); err != nil {
				s.log.Warn("reconcile: remove stale peer", "error", err)
				return
			}
		}
	}
	var err error
	switch {
	case s.autopilot != nil && m.ID != s.nodeID && !isPeer(current, m.ID):
		err = s.autopilot.AddServer(autopilotServer(m, false))
	case isNonvoter(current, m.ID):
		// A known peer at a new address keeps its suffrage.
		err = s.raft.AddNonvoter(raft.ServerID(m.ID), raft.ServerAddress(m.RPCAddr), 0, 0).Error()
	default:
		err = s.raft.AddVoter(raft.ServerID(m.ID), raft.ServerAddress(m.RPCAddr), 0, 0).Error()
	}
	if err != nil {
		s.log.Warn("reconcile: add raft peer", "member", m.Name, "error", err)
		return
	}
	s.log.Info("reconcile: raft peer added or updated", "member", m.Name, "id", m.ID, "address", m.RPCAddr)
}

func isPeer(current []raft.Server, id string) bool {
	for _, srv := range current {
		if string(srv.ID) == id {
			return true
		}
	}
	return false
}

func isNonvoter(current []raft.Server, id string) bool {
	for _, srv := range current {
		if string(srv.ID) == id {
			return srv.Suffrage == raft.Nonvoter
		}
	}
	return false
}

// removeRaftPeer removes a server that left the cluster.
func (s *Server) removeRaftPeer(m serverMember, current []raft.Server) {
	if !isPeer(current, m.ID) || m.ID == s.nodeID {
		return
	}
	if err := s.raft.RemoveServer(raft.ServerID(m.ID), 0, 0).Error(); err != nil {
		s.log.Warn("reconcile: remove raft peer", "member", m.Name, "error", err)
		return
	}
	s.log.Info("reconcile: raft peer removed (left)", "member", m.Name, "id", m.ID)
}
