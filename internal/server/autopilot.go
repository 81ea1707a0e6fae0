package server

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	autopilot "github.com/hashicorp/raft-autopilot"
	"github.com/hashicorp/serf/serf"

	"github.com/drover-project/drover/internal/structs"
)

// AutopilotConfig is autopilot's configuration (see structs).
type AutopilotConfig = structs.AutopilotConfig

// DefaultAutopilotConfig is Nomad's default.
func DefaultAutopilotConfig() *AutopilotConfig {
	return &AutopilotConfig{
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
func (s *Server) setupAutopilot(hlog hclog.Logger) {
	if s.cluster == nil {
		return
	}
	s.autopilot = autopilot.New(s.raft, autopilotDelegate{s},
		autopilot.WithLogger(hlog.Named("autopilot")),
		autopilot.WithUpdateInterval(500*time.Millisecond),
		autopilot.WithReconcileInterval(time.Second))
}

// runAutopilot is a leader duty.
func (s *Server) runAutopilot(ctx context.Context) {
	if s.autopilot == nil {
		return
	}
	s.autopilot.Start(ctx)
	<-ctx.Done()
	<-s.autopilot.Stop()
}

// initialAutopilotConfig is the configuration in force until one is
// stored: the agent's autopilot block, else Nomad's default.
func (s *Server) initialAutopilotConfig() *AutopilotConfig {
	if s.config.Autopilot != nil {
		return s.config.Autopilot.Copy()
	}
	return DefaultAutopilotConfig()
}

// autopilotConfig is the configuration in force: the stored one, else the
// initial one. Nothing is stored until an operator sets one, so forming a
// cluster writes no extra raft entry (CAS against ModifyIndex 0 means
// "none stored yet").
func (s *Server) autopilotConfig() *AutopilotConfig {
	if c, err := s.State().AutopilotConfig(nil); err == nil && c != nil {
		return c
	}
	return s.initialAutopilotConfig()
}

// validateAutopilotConfig names the first field that is out of range.
func validateAutopilotConfig(c *AutopilotConfig) error {
	switch {
	case c.LastContactThreshold < 0:
		return BadRequest("invalid autopilot configuration: LastContactThreshold: %s is negative", c.LastContactThreshold)
	case c.ServerStabilizationTime < 0:
		return BadRequest("invalid autopilot configuration: ServerStabilizationTime: %s is negative", c.ServerStabilizationTime)
	}
	return nil
}

// autopilotDelegate is autopilot's view of the application.
type autopilotDelegate struct{ s *Server }

func (d autopilotDelegate) AutopilotConfig() *autopilot.Config {
	c := d.s.autopilotConfig()
	return &autopilot.Config{
		CleanupDeadServers:      c.CleanupDeadServers,
		LastContactThreshold:    c.LastContactThreshold,
		MaxTrailingLogs:         c.MaxTrailingLogs,
		MinQuorum:               c.MinQuorum,
		ServerStabilizationTime: c.ServerStabilizationTime,
	}
}

func (d autopilotDelegate) NotifyState(st *autopilot.State) {
	d.s.apState.mu.Lock()
	d.s.apState.state = st
	d.s.apState.mu.Unlock()
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
			if string(id) == d.s.nodeID {
				st = d.s.raftStats()
			} else if err := d.s.peerRPC(ctx, string(srv.Address), "Cluster.ServerStats", &structs.ServerRaftStatsRequest{}, &st); err != nil {
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
	if d.s.cluster == nil {
		return nil
	}
	_, leaderID := d.s.raft.LeaderWithID()
	out := map[raft.ServerID]*autopilot.Server{}
	for _, m := range d.s.cluster.servers() {
		srv := autopilotServer(m, string(leaderID) == m.ID)
		out[srv.ID] = srv
	}
	return out
}

// RemoveFailedServer forces a failed server out of gossip; it then counts
// as left and reconciliation removes it from raft.
func (d autopilotDelegate) RemoveFailedServer(srv *autopilot.Server) {
	d.s.log.Info("autopilot: removing a dead server", "name", srv.Name, "id", srv.ID)
	if err := d.s.cluster.serf.RemoveFailedNode(srv.Name); err != nil {
		d.s.log.Warn("autopilot: remove dead server", "name", srv.Name, "error", err)
	}
}

func autopilotServer(m serverMember, leader bool) *autopilot.Server {
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

// raftStats is this server's raft progress, for the leader's autopilot.
func (s *Server) raftStats() structs.ServerRaftStats {
	out := structs.ServerRaftStats{LastIndex: s.raft.LastIndex()}
	if s.raft.State() != raft.Leader {
		if last := s.raft.LastContact(); last.IsZero() {
			out.LastContact = -1
		} else {
			out.LastContact = time.Since(last)
		}
	}
	out.LastTerm, _ = strconv.ParseUint(s.raft.Stats()["last_log_term"], 10, 64)
	return out
}
