package server

import (
	"context"
	"time"

	"github.com/hashicorp/raft"
	"github.com/hashicorp/serf/serf"

	"github.com/drover-project/drover/internal/structs"
)

// maybeBootstrap forms the cluster once bootstrap_expect servers see each
// other: every one of them bootstraps raft with the same configuration
// (all of their IDs), which raft accepts as one. It never runs twice: a
// server with raft state, or one whose peers already have a cluster, joins
// that cluster instead (the leader adds it).
func (c *cluster) maybeBootstrap() {
	expect := c.s.config.BootstrapExpect
	if c.bootstrapped || expect <= 1 {
		return
	}
	if has, err := raft.HasExistingState(c.s.stores.logs, c.s.stores.stable, c.s.stores.snaps); err != nil || has {
		c.bootstrapped = err == nil
		return
	}
	var alive []serverMember
	for _, m := range c.servers() {
		if m.Status != serf.StatusAlive {
			continue
		}
		if m.Expect != 0 && m.Expect != expect {
			c.s.log.Error("bootstrap: servers disagree on bootstrap_expect; not bootstrapping", "member", m.Name, "expect", m.Expect, "ours", expect)
			return
		}
		alive = append(alive, m)
	}
	if len(alive) < expect {
		return
	}
	// A server added to a running cluster must not start a second one.
	for _, m := range alive {
		if m.ID == c.s.nodeID {
			continue
		}
		peers, err := c.s.remotePeers(m.RPCAddr)
		if err != nil {
			c.s.log.Warn("bootstrap: cannot ask a server for its peers; waiting", "member", m.Name, "error", err)
			return
		}
		if len(peers) > 0 {
			c.s.log.Info("bootstrap: a cluster already exists; joining it", "member", m.Name)
			c.bootstrapped = true
			return
		}
	}
	cfg := raft.Configuration{}
	for _, m := range alive {
		cfg.Servers = append(cfg.Servers, raft.Server{
			ID: raft.ServerID(m.ID), Address: raft.ServerAddress(m.RPCAddr), Suffrage: raft.Voter,
		})
	}
	if err := c.s.raft.BootstrapCluster(cfg).Error(); err != nil {
		c.s.log.Error("bootstrap failed", "error", err)
		return
	}
	c.bootstrapped = true
	c.s.log.Info("bootstrapped the cluster", "servers", len(cfg.Servers))
}

// remotePeers asks the server at addr for its raft peers.
func (s *Server) remotePeers(addr string) ([]string, error) {
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
	defer cancel()
	var reply structs.StatusPeersResponse
	err := s.peerRPC(ctx, addr, "Status.Peers", &structs.GenericRequest{}, &reply)
	return reply.Peers, err
}
