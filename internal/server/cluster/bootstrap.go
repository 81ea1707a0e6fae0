package cluster

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
func (c *Cluster) maybeBootstrap(ctx context.Context) {
	expect := c.cfg.BootstrapExpect
	if c.bootstrapped || expect <= 1 {
		return
	}
	if has, err := raft.HasExistingState(c.stores.logs, c.stores.stable, c.stores.snaps); err != nil || has {
		c.bootstrapped = err == nil
		return
	}
	var alive []Member
	for _, m := range c.Servers() {
		if m.Status != serf.StatusAlive {
			continue
		}
		if m.Expect != 0 && m.Expect != expect {
			c.log.Error("bootstrap: servers disagree on bootstrap_expect; not bootstrapping", "member", m.Name, "expect", m.Expect, "ours", expect)
			return
		}
		alive = append(alive, m)
	}
	if len(alive) < expect {
		return
	}
	// A server added to a running cluster must not start a second one.
	for _, m := range alive {
		if m.ID == c.cfg.NodeID {
			continue
		}
		peers, err := c.remotePeers(ctx, m.RPCAddr)
		if err != nil {
			c.log.Warn("bootstrap: cannot ask a server for its peers; waiting", "member", m.Name, "error", err)
			return
		}
		if len(peers) > 0 {
			c.log.Info("bootstrap: a cluster already exists; joining it", "member", m.Name)
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
	if err := c.raft.BootstrapCluster(cfg).Error(); err != nil {
		c.log.Error("bootstrap failed", "error", err)
		return
	}
	c.bootstrapped = true
	c.log.Info("bootstrapped the cluster", "servers", len(cfg.Servers))
}

// remotePeers asks the server at addr for its raft peers.
func (c *Cluster) remotePeers(ctx context.Context, addr string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var reply structs.StatusPeersResponse
	err := c.PeerRPC(ctx, addr, "Status.Peers", &structs.GenericRequest{}, &reply)
	return reply.Peers, err
}
