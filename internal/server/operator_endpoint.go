package server

import (
	"context"
	"errors"

	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/fsm"
	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// OperatorEndpoint is the Operator.* endpoint family.
type OperatorEndpoint struct{ srv *Server }

// SchedulerGetConfiguration answers the scheduler configuration in force:
// the default until one is written.
func (e *OperatorEndpoint) SchedulerGetConfiguration(ctx context.Context, args *structs.GenericRequest) (*structs.SchedulerConfigurationResponse, error) {
	reply := &structs.SchedulerConfigurationResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		cfg, err := st.SchedulerConfig(ws)
		if cfg == nil {
			cfg = defaultSchedulerConfig(e.srv.config)
		}
		reply.SchedulerConfig = cfg
		return st.Index(state.TableSchedulerConfig), err
	})
	return reply, err
}

// SchedulerSetConfiguration validates and writes the scheduler
// configuration. With CAS it only applies if the stored ModifyIndex equals
// Config.ModifyIndex, and reports whether it did.
func (e *OperatorEndpoint) SchedulerSetConfiguration(ctx context.Context, args *structs.SchedulerSetConfigArgs) (*structs.SchedulerSetConfigurationResponse, error) {
	reply := &structs.SchedulerSetConfigurationResponse{}
	if err := args.Config.Validate(); err != nil {
		return nil, BadRequest("invalid scheduler configuration: %w", err)
	}
	index, updated, err := e.srv.casApply(ctx, structs.SchedulerConfigRequestType, &structs.SchedulerSetConfigRequest{Config: args.Config, CAS: args.CAS})
	if err != nil {
		return nil, err
	}
	reply.Index, reply.Updated = index, updated
	return reply, nil
}

// casApply writes a check-and-set configuration entry. A stale CAS index
// is no error: the entry changed nothing, and updated is false.
func (s *Server) casApply(ctx context.Context, t structs.MessageType, req any) (index uint64, updated bool, err error) {
	index, err = s.raftApply(ctx, t, req)
	if errors.Is(err, fsm.ErrCASConflict) {
		return index, false, nil
	}
	return index, err == nil, err
}

// RaftGetConfiguration answers the servers of the raft configuration.
func (e *OperatorEndpoint) RaftGetConfiguration(ctx context.Context, args *structs.GenericRequest) (*structs.RaftConfigurationResponse, error) {
	reply := &structs.RaftConfigurationResponse{}
	f := e.srv.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return nil, err
	}
	_, leaderID := e.srv.raft.LeaderWithID()
	for _, srv := range f.Configuration().Servers {
		reply.Servers = append(reply.Servers, &structs.RaftServer{
			ID: string(srv.ID), Node: e.srv.cluster.ServerName(string(srv.ID)), Address: e.srv.rpcAddrOf(string(srv.ID), string(srv.Address)),
			Leader: srv.ID == leaderID, Voter: srv.Suffrage == raft.Voter, RaftProtocol: "3",
		})
	}
	reply.Index = f.Index()
	return reply, nil
}

// SystemEndpoint is the System.* endpoint family.
type SystemEndpoint struct{ srv *Server }

// GarbageCollect writes a force-gc core eval: it collects every terminal
// eval and stopped job now, whatever its age.
func (e *SystemEndpoint) GarbageCollect(ctx context.Context, args *structs.GenericWriteArgs) (*structs.GenericResponse, error) {
	reply := &structs.GenericResponse{}
	return reply, e.srv.leader.CreateCoreEvals(leader.CoreJobForceGC)
}
