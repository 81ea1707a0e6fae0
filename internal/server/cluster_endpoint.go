package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/server/cluster"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// ClusterEndpoint is the Cluster.* endpoint family: gossip membership
// (answered by the server asked), raft peers, and the operator's raft and
// autopilot controls (answered by the leader).
type ClusterEndpoint struct{ srv *Server }

// errNoGossip answers membership calls on a server that runs without.
var errNoGossip = errors.New("this server runs without gossip (dev mode or a lone in-process server)")

// GossipKeyring runs a gossip keyring operation across the servers
// (answered by the server asked, whose serf broadcasts it). Without
// gossip encryption it answers 400 where Nomad's serf reports every
// member failing (500): the operator must set server.encrypt first. A
// change some members refuse (a key not installed, removing the primary
// key) or do not answer is a 400 naming them and their reasons, where
// Nomad answers 500.
func (e *ClusterEndpoint) GossipKeyring(_ context.Context, args *structs.GossipKeyringRequest) (*structs.GossipKeyringResponse, error) {
	if !e.srv.cluster.GossipEncrypted() {
		return nil, BadRequest("%v", cluster.ErrGossipKeyringDisabled)
	}
	switch args.Op {
	case cluster.KeyringList:
	case cluster.KeyringInstall, cluster.KeyringUse, cluster.KeyringRemove:
		if args.Key == "" {
			return nil, BadRequest("Key: the base64 gossip key to %s is required", args.Op)
		}
		if _, err := cluster.ValidGossipKey(args.Key); err != nil {
			return nil, BadRequest("Key: %v", err)
		}
	default:
		return nil, NotFound("keyring operation %q not found (list, install, use, remove)", args.Op)
	}
	res, err := e.srv.cluster.GossipKeyring(args.Op, args.Key)
	var refused *cluster.KeyringError
	switch {
	case errors.As(err, &refused):
		return nil, BadRequest("%v", err)
	case err != nil:
		return nil, err
	}
	return &structs.GossipKeyringResponse{Messages: res.Messages, Keys: res.Keys, NumNodes: res.NumNodes}, nil
}

// ServerStats reports this server's raft progress (for autopilot).
func (e *ClusterEndpoint) ServerStats(_ context.Context, _ *structs.ServerRaftStatsRequest) (*structs.ServerRaftStats, error) {
	st := e.srv.cluster.RaftStats()
	return &st, nil
}

// Members lists the gossip members this server sees.
func (e *ClusterEndpoint) Members(_ context.Context, _ *structs.ClusterMembersRequest) (*structs.ClusterMembersResponse, error) {
	c := e.srv.config
	reply := &structs.ClusterMembersResponse{ServerName: c.NodeName, ServerRegion: c.Region, ServerDC: c.Datacenter, Members: []structs.ClusterMember{}}
	if !e.srv.cluster.HasGossip() {
		return reply, nil
	}
	for _, m := range e.srv.cluster.Members() {
		reply.Members = append(reply.Members, structs.ClusterMember{
			Name: m.Name, Addr: m.Addr.String(), Port: m.Port, Status: m.Status.String(), Tags: m.Tags,
			ProtocolMin: m.ProtocolMin, ProtocolMax: m.ProtocolMax, ProtocolCur: m.ProtocolCur,
			DelegateMin: m.DelegateMin, DelegateMax: m.DelegateMax, DelegateCur: m.DelegateCur,
		})
	}
	sort.Slice(reply.Members, func(i, j int) bool { return reply.Members[i].Name < reply.Members[j].Name })
	return reply, nil
}

// Join joins the gossip pool through the given serf addresses.
func (s *Server) Join(_ context.Context, args *structs.ClusterJoinRequest) (*structs.ClusterJoinResponse, error) {
	if !s.cluster.HasGossip() {
		return nil, BadRequest("%v", errNoGossip)
	}
	if len(args.Addrs) == 0 {
		return nil, BadRequest("address: at least one address to join is required")
	}
	n, err := s.cluster.Join(args.Addrs)
	if n == 0 && err != nil {
		return nil, fmt.Errorf("join %s: %w", strings.Join(args.Addrs, ", "), err)
	}
	return &structs.ClusterJoinResponse{NumJoined: n}, nil
}

// ForceLeave marks a failed member as left, which removes it from raft.
func (s *Server) ForceLeave(_ context.Context, args *structs.ForceLeaveRequest) (*structs.GenericResponse, error) {
	if !s.cluster.HasGossip() {
		return nil, BadRequest("%v", errNoGossip)
	}
	if args.Node == "" {
		return nil, BadRequest("node: the member's name is required")
	}
	known := false
	for _, m := range s.cluster.Members() {
		known = known || m.Name == args.Node
	}
	if !known {
		return nil, NotFound("member %q not found", args.Node)
	}
	if err := s.cluster.RemoveFailedNode(args.Node, args.Prune); err != nil {
		return nil, err
	}
	return &structs.GenericResponse{}, nil
}

// RemoveRaftPeer removes a server from raft by ID or address.
func (e *ClusterEndpoint) RemoveRaftPeer(ctx context.Context, args *structs.RaftPeerRequest) (*structs.GenericResponse, error) {
	reply := &structs.GenericResponse{}
	target, err := e.findRaftServer(args.ID, args.Address)
	if err != nil {
		return nil, err
	}
	f := e.srv.raft.RemoveServer(target.ID, 0, 0)
	if err := f.Error(); err != nil {
		return nil, err
	}
	reply.Index = f.Index()
	return reply, nil
}

// TransferLeadership hands leadership to the named voter, or to any.
func (e *ClusterEndpoint) TransferLeadership(ctx context.Context, args *structs.RaftPeerRequest) (*structs.GenericResponse, error) {
	reply := &structs.GenericResponse{}
	var f raft.Future
	if args.ID == "" && args.Address == "" {
		f = e.srv.raft.LeadershipTransfer()
	} else {
		target, err := e.findRaftServer(args.ID, args.Address)
		if err != nil {
			return nil, err
		}
		if string(target.ID) == e.srv.nodeID {
			return nil, BadRequest("id: %s already leads the cluster", target.ID)
		}
		if target.Suffrage != raft.Voter {
			return nil, BadRequest("id: %s is not a voter", target.ID)
		}
		f = e.srv.raft.LeadershipTransferToServer(target.ID, target.Address)
	}
	if err := f.Error(); err != nil {
		return nil, fmt.Errorf("leadership transfer: %w", err)
	}
	return reply, nil
}

// findRaftServer finds a raft server by ID or address (400/404 otherwise).
func (e *ClusterEndpoint) findRaftServer(id, addr string) (raft.Server, error) {
	if id == "" && addr == "" {
		return raft.Server{}, BadRequest("id: a raft server ID or address is required")
	}
	f := e.srv.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return raft.Server{}, err
	}
	for _, srv := range f.Configuration().Servers {
		if (id != "" && string(srv.ID) == id) || (addr != "" && (string(srv.Address) == addr || e.srv.rpcAddrOf(string(srv.ID), "") == addr)) {
			return srv, nil
		}
	}
	if id != "" {
		return raft.Server{}, NotFound("raft server with id %q not found", id)
	}
	return raft.Server{}, NotFound("raft server with address %q not found", addr)
}

// AutopilotGetConfiguration answers the autopilot configuration in force
// (raft-stored; the initial one until the first leader stored it).
func (e *ClusterEndpoint) AutopilotGetConfiguration(ctx context.Context, args *structs.AutopilotConfigRequest) (*structs.AutopilotConfigResponse, error) {
	reply := &structs.AutopilotConfigResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		cfg, err := st.AutopilotConfig(ws)
		if cfg == nil {
			cfg = e.srv.cluster.InitialAutopilotConfig()
		}
		reply.Config = *cfg
		return st.Index(state.TableAutopilotConfig), err
	})
	return reply, err
}

// AutopilotSetConfiguration replaces the autopilot configuration through
// raft; with CAS only when the stored ModifyIndex equals
// Config.ModifyIndex (Updated false otherwise, and nothing changes).
func (e *ClusterEndpoint) AutopilotSetConfiguration(ctx context.Context, args *structs.AutopilotSetConfigRequest) (*structs.AutopilotSetConfigResponse, error) {
	reply := &structs.AutopilotSetConfigResponse{}
	if err := cluster.ValidateAutopilotConfig(&args.Config); err != nil {
		return nil, BadRequest("%v", err)
	}
	index, updated, err := e.srv.casApply(ctx, structs.AutopilotConfigRequestType, &structs.AutopilotSetConfigEntry{Config: args.Config, CAS: args.CAS})
	if err != nil {
		return nil, err
	}
	reply.Index, reply.Updated = index, updated
	return reply, nil
}

// ServerHealth answers autopilot's view of every server.
func (e *ClusterEndpoint) ServerHealth(ctx context.Context, args *structs.OperatorHealthRequest) (*structs.OperatorHealthResponse, error) {
	reply := &structs.OperatorHealthResponse{}
	if !e.srv.cluster.HasAutopilot() {
		return nil, BadRequest("%v", errNoGossip)
	}
	st := e.srv.cluster.AutopilotState()
	if st == nil {
		return nil, NewCodedError(503, "autopilot has not yet computed the servers' health; try again shortly")
	}
	reply.Healthy, reply.FailureTolerance = st.Healthy, st.FailureTolerance
	for id, ss := range st.Servers {
		reply.Servers = append(reply.Servers, structs.ServerHealth{
			ID: string(id), Name: ss.Server.Name, Address: string(ss.Server.Address),
			SerfStatus: string(ss.Server.NodeStatus), Version: ss.Server.Version,
			Leader: id == st.Leader, Voter: ss.HasVotingRights(),
			LastContact: ss.Stats.LastContact, LastTerm: ss.Stats.LastTerm, LastIndex: ss.Stats.LastIndex,
			Healthy: ss.Health.Healthy, StableSince: ss.Health.StableSince,
		})
	}
	sort.Slice(reply.Servers, func(i, j int) bool { return reply.Servers[i].Name < reply.Servers[j].Name })
	reply.QueryMeta = e.srv.queryMeta(e.srv.raft.LastIndex())
	return reply, nil
}

// SnapshotRestore restores an operator snapshot on the leader.
func (e *ClusterEndpoint) SnapshotRestore(ctx context.Context, args *structs.SnapshotRestoreRequest) (*structs.GenericResponse, error) {
	reply := &structs.GenericResponse{}
	return reply, e.srv.restoreSnapshotLocally(bytes.NewReader(args.Data))
}
