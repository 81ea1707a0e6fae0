package cluster

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	autopilot "github.com/hashicorp/raft-autopilot"
	"github.com/hashicorp/serf/serf"

	"github.com/drover-project/drover/internal/structs"
)

// DefaultAutopilotConfig is Nomad's default.
func DefaultAutopilotConfig() *structs.AutopilotConfig {
	return &structs.AutopilotConfig{
		CleanupDeadServers:      true,
		LastContactThreshold:    200 * time.Millisecond,
		MaxTrailingLogs:         250,
		ServerStabilizationTime: 10 * time.Second,
	}
}

// autopilotState is what autopilot last reported. Its configuration is
// raft-stored (state.TableAutopilotConfig), so every server has it and a
// new leader's autopilot runs with what the operator last set.
type autopilotState struct {
	mu    sync.Mutex
	state *autopilot.State
}

// setupAutopilot builds autopilot (run only while leading) over raft
// with this server as its delegate.
func (c *Cluster) setupAutopilot(hlog hclog.Logger) {
	if c.serf == nil {
		return
	}
	c.autopilot = autopilot.New(c.raft, autopilotDelegate{c},
		autopilot.WithLogger(hlog.Named("autopilot")),
		autopilot.WithUpdateInterval(500*time.Millisecond),
		autopilot.WithReconcileInterval(time.Second))
}

// RunAutopilot is a leader duty: autopilot runs until ctx ends (at once
// without gossip). It has no step form: autopilot keeps its own timers.
func (c *Cluster) RunAutopilot(ctx context.Context) {
	if c.autopilot == nil {
		return
	}
	c.autopilot.Start(ctx)
	<-ctx.Done()
	<-c.autopilot.Stop()
}

// HasAutopilot reports whether autopilot runs on this server (it needs
// gossip).
func (c *Cluster) HasAutopilot() bool { return c.autopilot != nil }

// AutopilotState is what autopilot last reported (nil before its first
// pass).
func (c *Cluster) AutopilotState() *autopilot.State {
	c.apState.mu.Lock()
	defer c.apState.mu.Unlock()
	return c.apState.state
}

// InitialAutopilotConfig is the configuration in force until one is
// stored: the agent's autopilot block, else Nomad's default.
func (c *Cluster) InitialAutopilotConfig() *structs.AutopilotConfig {
	if c.cfg.Autopilot != nil {
		return c.cfg.Autopilot.Copy()
	}
	return DefaultAutopilotConfig()
}

// autopilotConfig is the configuration in force: the stored one, else the
// initial one. Nothing is stored until an operator sets one, so forming a
// cluster writes no extra raft entry (CAS against ModifyIndex 0 means
// "none stored yet").
func (c *Cluster) autopilotConfig() *structs.AutopilotConfig {
	if cfg, err := c.host.StoredAutopilotConfig(); err == nil && cfg != nil {
		return cfg
	}
	return c.InitialAutopilotConfig()
}

// ValidateAutopilotConfig names the first field that is out of range (the
// endpoint answers it as a 400).
func ValidateAutopilotConfig(c *structs.AutopilotConfig) error {
	switch {
	case c.LastContactThreshold < 0:
		return fmt.Errorf("invalid autopilot configuration: LastContactThreshold: %s is negative", c.LastContactThreshold)
	case c.ServerStabilizationTime < 0:
		return fmt.Errorf("invalid autopilot configuration: ServerStabilizationTime: %s is negative", c.ServerStabilizationTime)
	}
	return nil
}

// autopilotDelegate is autopilot's view of the application.
type autopilotDelegate struct{ c *Cluster }

var _ autopilot.ApplicationIntegration = autopilotDelegate{}

func (d autopilotDelegate) AutopilotConfig() *autopilot.Config {
	c := d.c.autopilotConfig()
	return &autopilot.Config{
		CleanupDeadServers:      c.CleanupDeadServers,
		LastContactThreshold:    c.LastContactThreshold,
		MaxTrailingLogs:         c.MaxTrailingLogs,
		MinQuorum:               c.MinQuorum,
		ServerStabilizationTime: c.ServerStabilizationTime,
	}
}

func (d autopilotDelegate) NotifyState(st *autopilot.State) {
	d.c.apState.mu.Lock()
	d.c.apState.state = st
	d.c.apState.mu.Unlock()
}

// FetchServerStats asks every alive server for its raft progress.
func (d autopilotDelegate) FetchServerStats(ctx context.Context, servers map[raft.ServerID]*autopilot.Server) map[raft.ServerID]*autopilot.ServerStats {
	out := map[raft.ServerID]*autopilot.ServerStats{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for id, srv := range servers {
		if srv.NodeStatus != autopilot.NodeAlive {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st structs.ServerRaftStats
			if string(id) == d.c.cfg.NodeID {
				st = d.c.RaftStats()
			} else if err := d.c.PeerRPC(ctx, string(srv.Address), "Cluster.ServerStats", &structs.ServerRaftStatsRequest{}, &st); err != nil {
				return
			}
			mu.Lock()
			out[id] = &autopilot.ServerStats{LastContact: st.LastContact, LastTerm: st.LastTerm, LastIndex: st.LastIndex}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// KnownServers are the servers gossip knows.
func (d autopilotDelegate) KnownServers() map[raft.ServerID]*autopilot.Server {
	if d.c.serf == nil {
		return nil
	}
	_, leaderID := d.c.raft.LeaderWithID()
	out := map[raft.ServerID]*autopilot.Server{}
	for _, m := range d.c.Servers() {
		srv := autopilotServer(m, string(leaderID) == m.ID)
		out[srv.ID] = srv
	}
	return out
}

// RemoveFailedServer forces a failed server out of gossip; it then counts
// as left and reconciliation removes it from raft.
func (d autopilotDelegate) RemoveFailedServer(srv *autopilot.Server) {
	d.c.log.Info("autopilot: removing a dead server", "name", srv.Name, "id", srv.ID)
	if err := d.c.serf.RemoveFailedNode(srv.Name); err != nil {
		d.c.log.Warn("autopilot: remove dead server", "name", srv.Name, "error", err)
	}
}

func autopilotServer(m Member, leader bool) *autopilot.Server {
	status := autopilot.NodeUnknown
	switch m.Status {
	case serf.StatusAlive:
		status = autopilot.NodeAlive
	case serf.StatusFailed:
		status = autopilot.NodeFailed
	case serf.StatusLeft:
		status = autopilot.NodeLeft
	}
	return &autopilot.Server{
		ID: raft.ServerID(m.ID), Name: m.Name, Address: raft.ServerAddress(m.RPCAddr),
		NodeStatus: status, Version: m.Build, RaftVersion: m.RaftVersion, IsLeader: leader,
		// Every server may vote (autopilot counts potential voters before it
		// removes a dead one).
		NodeType: autopilot.NodeVoter,
	}
}

// RaftStats is this server's raft progress, for the leader's autopilot.
func (c *Cluster) RaftStats() structs.ServerRaftStats {
	out := structs.ServerRaftStats{LastIndex: c.raft.LastIndex()}
	if c.raft.State() != raft.Leader {
		if last := c.raft.LastContact(); last.IsZero() {
			out.LastContact = -1
		} else {
			out.LastContact = time.Since(last)
		}
	}
	out.LastTerm, _ = strconv.ParseUint(c.raft.Stats()["last_log_term"], 10, 64)
	return out
}
