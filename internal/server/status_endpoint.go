package server

import (
	"context"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/structs"
)

// StatusEndpoint is the Status.* endpoint family. Its calls describe the
// server that answers them, so they are never forwarded.
type StatusEndpoint struct{ srv *Server }

// Leader answers the leader's raft address, "" without a leader.
func (e *StatusEndpoint) Leader(ctx context.Context, args *structs.GenericRequest) (*structs.StatusLeaderResponse, error) {
	return &structs.StatusLeaderResponse{Leader: e.srv.Leader()}, nil
}

// Peers answers the raft addresses of the voting servers.
func (e *StatusEndpoint) Peers(ctx context.Context, args *structs.GenericRequest) (*structs.StatusPeersResponse, error) {
	f := e.srv.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return nil, err
	}
	reply := &structs.StatusPeersResponse{Peers: []string{}}
	for _, srv := range f.Configuration().Servers {
		if srv.Suffrage == raft.Voter {
			reply.Peers = append(reply.Peers, e.srv.rpcAddrOf(string(srv.ID), string(srv.Address)))
		}
	}
	return reply, nil
}

// RaftStats answers this server's view of raft: the leader, whether it is
// this server, and the highest index its state has applied.
func (e *StatusEndpoint) RaftStats(ctx context.Context, args *structs.GenericRequest) (*structs.RaftStatsResponse, error) {
	leader := e.srv.Leader()
	return &structs.RaftStatsResponse{Leader: leader, IsLeader: e.srv.IsLeader(),
		AppliedIndex: e.srv.State().LatestIndex(), Term: e.srv.raft.CurrentTerm(), State: e.srv.raft.State().String(),
		LastIndex: e.srv.raft.LastIndex()}, nil
}

// RegionEndpoint is the Region.* endpoint family.
type RegionEndpoint struct{ srv *Server }

// List answers the regions this server knows: its own (Drover does not
// federate regions).
func (e *RegionEndpoint) List(ctx context.Context, _ *structs.QueryOptions) (*structs.RegionListResponse, error) {
	return &structs.RegionListResponse{Regions: []string{e.srv.config.Region}}, nil
}
