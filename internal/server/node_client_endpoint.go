package server

import (
	"context"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// Register registers a client node and arms its heartbeat timer; the
// reply tells the client its heartbeat TTL.
func (e *NodeEndpoint) Register(ctx context.Context, args *structs.NodeRegisterArgs) (*structs.NodeUpdateResponse, error) {
	if args == nil || args.Node == nil {
		return nil, BadRequest("Node: missing node")
	}
	if err := e.srv.auth.AuthorizeRegistration(args); err != nil {
		return nil, err
	}
	written, err := e.upsertNode(ctx, args.Node)
	if err != nil {
		return nil, err
	}
	return e.alive(args.Node.ID, written), nil
}

// UpdateStatus is a client's heartbeat: the node is alive (or reports
// another status). A node that had been marked down and heartbeats again
// becomes ready, with its node-update (or, from disconnected, reconnect)
// evals.
func (e *NodeEndpoint) UpdateStatus(ctx context.Context, args *structs.NodeHeartbeatArgs) (*structs.NodeUpdateResponse, error) {
	reply := &structs.NodeUpdateResponse{}
	node, err := e.authenticate(args.NodeID, args.SecretID)
	if err != nil {
		return nil, err
	}
	status := args.Status
	if status == "" {
		status = structs.NodeStatusReady
	}
	written := &structs.NodeWriteResponse{}
	if node.Status != status {
		if written, err = e.setStatus(node.ID, status); err != nil {
			return nil, err
		}
	}
	if status == structs.NodeStatusDown {
		reply.EvalIDs, reply.Index = written.EvalIDs, written.Index
		return reply, nil
	}
	return e.alive(node.ID, written), nil
}

// alive arms the node's heartbeat timer and builds the reply.
func (e *NodeEndpoint) alive(nodeID string, r *structs.NodeWriteResponse) *structs.NodeUpdateResponse {
	ttl := e.srv.leader.Heartbeats().TTL()
	e.srv.leader.Heartbeats().Reset(nodeID, ttl)
	leader := e.srv.Leader()
	return &structs.NodeUpdateResponse{HeartbeatTTL: ttl, EvalIDs: r.EvalIDs, Index: r.Index,
		LeaderRPCAddr: leader, Servers: []string{leader}}
}

// authenticate returns the node if the secret matches.
func (e *NodeEndpoint) authenticate(nodeID, secretID string) (*structs.Node, error) {
	if nodeID == "" {
		return nil, BadRequest("NodeID: missing")
	}
	node, err := e.srv.State().NodeByID(nil, nodeID)
	if err != nil {
		return nil, err
	}
	if node == nil {
		return nil, NotFound("node %q: %w", nodeID, structs.ErrNodeNotFound)
	}
	if node.SecretID != "" && node.SecretID != secretID {
		return nil, NewCodedError(403, "SecretID: does not match node %s", nodeID)
	}
	return node, nil
}

// GetClientAllocs returns a node's allocations (with their jobs), blocking
// until they change past MinQueryIndex: the full form that clients before
// GetClientAllocIndexes pull, still answered for them (a rolling upgrade
// updates the servers first). It wakes only on the node's own allocs.
func (e *NodeEndpoint) GetClientAllocs(ctx context.Context, args *structs.NodeAllocsArgs) (*structs.NodeAllocsResponse, error) {
	out := &structs.NodeAllocsResponse{}
	if _, err := e.authenticate(args.NodeID, args.SecretID); err != nil {
		return nil, err
	}
	index, err := e.pullNodeAllocs(ctx, args, func(allocs []*structs.Allocation) { out.Allocs = allocs })
	out.Index = index
	return out, err
}

// GetClientAllocIndexes is a client's pull (Nomad's Node.GetClientAllocs):
// the AllocModifyIndex of every alloc the servers hold for the node, by
// ID, blocking until one of the node's allocs changes past MinQueryIndex.
// The client then fetches only the allocs whose index moved
// (Alloc.GetAllocs). Drover differs from Nomad in the name: Nomad's
// clients have spoken this form under Node.GetClientAllocs since 0.6,
// while Drover's earlier clients call that name for the full form and a
// server cannot tell them apart by their arguments.
func (e *NodeEndpoint) GetClientAllocIndexes(ctx context.Context, args *structs.NodeAllocsArgs) (*structs.NodeClientAllocsResponse, error) {
	out := &structs.NodeClientAllocsResponse{}
	if _, err := e.authenticate(args.NodeID, args.SecretID); err != nil {
		return nil, err
	}
	index, err := e.pullNodeAllocs(ctx, args, func(allocs []*structs.Allocation) {
		out.Allocs = make(map[string]uint64, len(allocs))
		for _, a := range allocs {
			out.Allocs[a.ID] = a.AllocModifyIndex
		}
	})
	out.Index = index
	return out, err
}

// pullNodeAllocs runs a client's blocking pull of its node's allocs,
// handing each run's allocs to use, and returns the answer's index.
//
// The query watches only the node's entries of the allocs' node index,
// and its index is the highest AllocModifyIndex of the node's allocs, not
// the alloc table's: with the table's, every alloc change anywhere in the
// cluster answered every node's next pull at once. AllocModifyIndex moves
// on every server write of an alloc (what the client must act on) but not
// on the client's own reports, which wake the query without answering it.
// An alloc removed by garbage collection moves no remaining alloc's index:
// a run after a wake that finds fewer allocs than the first answers at the
// table's index, which the removal passed. (A removal between two pulls is
// seen by the client at its next answer, at the latest when the wait ends:
// the client reconciles every answer.)
func (e *NodeEndpoint) pullNodeAllocs(ctx context.Context, args *structs.NodeAllocsArgs, use func([]*structs.Allocation)) (uint64, error) {
	first := -1
	meta, err := e.srv.BlockingQuery(ctx, args.QueryOptions, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		allocs, err := st.AllocsByNode(ws, args.NodeID)
		if err != nil {
			return 0, err
		}
		use(allocs)
		index := uint64(0)
		for _, a := range allocs {
			index = max(index, a.AllocModifyIndex)
		}
		if first < 0 {
			first = len(allocs)
		} else if len(allocs) < first {
			index = max(index, st.Index(state.TableAllocs))
		}
		return index, nil
	})
	return meta.Index, err
}

// GetAllocs returns the allocs a client asks for by ID, with their jobs:
// those its pull (Node.GetClientAllocIndexes) showed changed. The node
// authenticates by its secret and may name only its own allocs; one no
// longer stored (garbage collected) is left out. With MinQueryIndex it
// waits until the alloc table has passed it, so a server behind the one
// that answered the pull does not answer with older allocs.
func (e *AllocEndpoint) GetAllocs(ctx context.Context, args *structs.AllocsGetArgs) (*structs.AllocsGetResponse, error) {
	out := &structs.AllocsGetResponse{}
	if _, err := (&NodeEndpoint{srv: e.srv}).authenticate(args.NodeID, args.SecretID); err != nil {
		return nil, err
	}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &out.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		out.Allocs = make([]*structs.Allocation, 0, len(args.AllocIDs))
		for _, id := range args.AllocIDs {
			a, err := st.AllocByID(ws, id)
			if err != nil {
				return 0, err
			}
			if a == nil {
				continue
			}
			if a.NodeID != args.NodeID {
				return 0, NewCodedError(403, "AllocIDs: alloc %s is not on node %s", id, args.NodeID)
			}
			out.Allocs = append(out.Allocs, a)
		}
		return st.Index(state.TableAllocs), nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateAlloc takes a client's batch of alloc updates (client status,
// task states, deployment health) in one raft entry, with one alloc-failure
// eval per job that has newly failed allocs so the scheduler reschedules
// them per the reschedule policy.
func (e *NodeEndpoint) UpdateAlloc(ctx context.Context, args *structs.AllocClientUpdateArgs) (*structs.GenericResponse, error) {
	if _, err := e.authenticate(args.NodeID, args.SecretID); err != nil {
		return nil, err
	}
	updates, evals, err := e.clientUpdates(args)
	if err != nil {
		return nil, err
	}
	if len(updates) == 0 {
		return &structs.GenericResponse{Index: e.srv.State().LatestIndex()}, nil
	}
	index, err := e.srv.raftApply(ctx, structs.AllocClientUpdateRequestType, &structs.AllocUpdateRequest{
		Allocs: updates, Evals: evals, UpdatedAt: e.srv.now().UnixNano(),
	})
	return &structs.GenericResponse{Index: index}, err
}

// clientUpdates keeps the updates for allocs on this node and creates the
// alloc-failure evals.
func (e *NodeEndpoint) clientUpdates(args *structs.AllocClientUpdateArgs) ([]*structs.Allocation, []*structs.Evaluation, error) {
	var updates []*structs.Allocation
	var evals []*structs.Evaluation
	failedJobs := map[structs.NamespacedID]bool{}
	for _, u := range args.Allocs {
		if u == nil {
			continue
		}
		existing, err := e.srv.State().AllocByID(nil, u.ID)
		if err != nil {
			return nil, nil, err
		}
		if existing == nil || existing.NodeID != args.NodeID {
			continue // not this node's: never let a client write another's alloc
		}
		updates = append(updates, u)
		key := structs.NamespacedID{Namespace: existing.Namespace, ID: existing.JobID}
		if newlyFailed(existing, u) && !failedJobs[key] {
			failedJobs[key] = true
			job, err := e.srv.State().JobByID(nil, key.Namespace, key.ID)
			if err != nil {
				return nil, nil, err
			}
			if job != nil && !job.Stop {
				evals = append(evals, e.srv.newJobEval(job, structs.EvalTriggerRetryFailedAlloc))
			}
		}
	}
	return updates, evals, nil
}

func newlyFailed(existing, update *structs.Allocation) bool {
	return update.ClientStatus == structs.AllocClientStatusFailed &&
		existing.ClientStatus != structs.AllocClientStatusFailed && existing.DesiredStatus == structs.AllocDesiredStatusRun
}

// PrevAllocMigration answers a client migrating an ephemeral_disk
// (migrate = true) about the alloc its AllocID replaces: where it ran,
// whether it is terminal yet, and the migrate token its node accepts
// (structs.MigrateToken, keyed with that node's secret, which never
// leaves the servers). Only the node running AllocID may ask, and only
// about AllocID's own previous alloc, as Nomad hands migrate tokens out
// with a node's allocs. A blocking query: the client waits with
// MinQueryIndex until the previous alloc is terminal.
func (e *NodeEndpoint) PrevAllocMigration(ctx context.Context, args *structs.PrevAllocMigrationArgs) (*structs.PrevAllocMigrationResponse, error) {
	if _, err := e.authenticate(args.NodeID, args.SecretID); err != nil {
		return nil, err
	}
	out := &structs.PrevAllocMigrationResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &out.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		*out = structs.PrevAllocMigrationResponse{QueryMeta: out.QueryMeta}
		a, err := st.AllocByID(ws, args.AllocID)
		if err != nil {
			return 0, err
		}
		if a == nil || a.NodeID != args.NodeID {
			return 0, NewCodedError(403, "AllocID: alloc %s is not on node %s", args.AllocID, args.NodeID)
		}
		out.PrevAllocID = a.PreviousAllocation
		prev, err := st.AllocByID(ws, a.PreviousAllocation)
		if err != nil {
			return 0, err
		}
		index := max(st.Index(state.TableAllocs), st.Index(state.TableNodes))
		if prev == nil {
			out.Gone = true
			return index, nil
		}
		out.PrevNodeID = prev.NodeID
		out.Terminal = prev.ClientTerminalStatus() || prev.ClientStatus == structs.AllocClientStatusLost ||
			prev.ClientStatus == structs.AllocClientStatusUnknown
		node, err := st.NodeByID(ws, prev.NodeID)
		if err != nil {
			return 0, err
		}
		if node == nil || node.Status == structs.NodeStatusDown {
			out.NodeDown = true
			return index, nil
		}
		out.HTTPAddr, out.TLSEnabled = node.HTTPAddr, node.TLSEnabled
		out.MigrateToken = structs.MigrateToken(prev.ID, node.SecretID)
		return index, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
