package client

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// fakeServers is an in-process Servers: it records calls and serves
// allocs with blocking-query semantics (a channel closed on each change).
type fakeServers struct {
	clock clock.Clock

	mu             sync.Mutex
	ttl            time.Duration
	registers      []*structs.Node
	registerTimes  []time.Time
	heartbeatTimes []time.Time
	failHeartbeats int    // next N heartbeats answer "node not found"
	registerToken  string // when set, Register refuses any other token
	unreachable    bool   // heartbeats fail as if no server answered
	updates        [][]*structs.Allocation
	allocs         map[string]*structs.Allocation
	index          uint64
	changed        chan struct{}
	fetched        [][]string // the IDs of each FetchAllocs call
}

func newFakeServers(c clock.Clock, ttl time.Duration) *fakeServers {
	return &fakeServers{clock: c, ttl: ttl, allocs: map[string]*structs.Allocation{}, index: 1, changed: make(chan struct{})}
}

func (f *fakeServers) Register(_ context.Context, args *structs.NodeRegisterArgs) (*structs.NodeUpdateResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.registerToken != "" && args.NodeRegistrationToken != f.registerToken {
		return nil, &structs.RPCError{Code: structs.RPCErrNodeRegistrationDenied, Msg: "Permission denied: no node registration token was presented"}
	}
	f.registers = append(f.registers, args.Node.Copy())
	f.registerTimes = append(f.registerTimes, f.clock.Now())
	return &structs.NodeUpdateResponse{HeartbeatTTL: f.ttl}, nil
}

func (f *fakeServers) Heartbeat(_ context.Context, args *structs.NodeHeartbeatArgs) (*structs.NodeUpdateResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.heartbeatTimes = append(f.heartbeatTimes, f.clock.Now())
	if f.unreachable {
		return nil, errNoServer
	}
	if f.failHeartbeats > 0 {
		f.failHeartbeats--
		return nil, errNodeGone
	}
	return &structs.NodeUpdateResponse{HeartbeatTTL: f.ttl}, nil
}

// errNoServer is a heartbeat that reached no server.
var errNoServer = errors.New("dial tcp 127.0.0.1:4647: connect: connection refused")

// errNodeGone is how a server's "unknown node" looks after an RPC hop.
var errNodeGone = &structs.RPCError{Code: structs.RPCErrNodeNotFound, Msg: `node "x": node not found`}

func (f *fakeServers) GetAllocIndexes(ctx context.Context, args *structs.NodeAllocsArgs) (*structs.NodeClientAllocsResponse, error) {
	for {
		f.mu.Lock()
		if f.index > args.MinQueryIndex {
			resp := &structs.NodeClientAllocsResponse{Index: f.index, Allocs: map[string]uint64{}}
			for _, a := range f.allocs {
				resp.Allocs[a.ID] = a.AllocModifyIndex
			}
			f.mu.Unlock()
			return resp, nil
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// FetchAllocs answers the allocs asked for and records their IDs.
func (f *fakeServers) FetchAllocs(_ context.Context, args *structs.AllocsGetArgs) (*structs.AllocsGetResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fetched = append(f.fetched, slices.Clone(args.AllocIDs))
	resp := &structs.AllocsGetResponse{QueryMeta: structs.QueryMeta{Index: f.index}}
	for _, id := range args.AllocIDs {
		if a := f.allocs[id]; a != nil {
			resp.Allocs = append(resp.Allocs, a)
		}
	}
	return resp, nil
}

// fetches returns the IDs of every FetchAllocs call so far.
func (f *fakeServers) fetches() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.fetched)
}

func (f *fakeServers) UpdateAllocs(_ context.Context, args *structs.AllocClientUpdateArgs) (*structs.GenericResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	batch := make([]*structs.Allocation, len(args.Allocs))
	for i, a := range args.Allocs {
		batch[i] = a.Copy()
	}
	f.updates = append(f.updates, batch)
	return &structs.GenericResponse{Index: f.index}, nil
}

// upsert stores allocs as a server write would: a new index, which is
// also their AllocModifyIndex.
func (f *fakeServers) upsert(allocs ...*structs.Allocation) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.index++
	for _, a := range allocs {
		a = a.Copy()
		a.AllocModifyIndex = f.index
		a.ModifyIndex = f.index
		f.allocs[a.ID] = a
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

// stop sets an alloc's desired status to stop.
func (f *fakeServers) stop(id string) {
	f.mu.Lock()
	a := f.allocs[id].Copy()
	f.mu.Unlock()
	a.DesiredStatus = structs.AllocDesiredStatusStop
	f.upsert(a)
}

// lastUpdate returns the most recent reported state of an alloc.
func (f *fakeServers) lastUpdate(id string) *structs.Allocation {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.updates) - 1; i >= 0; i-- {
		for _, a := range f.updates[i] {
			if a.ID == id {
				return a
			}
		}
	}
	return nil
}

func (f *fakeServers) counts() (registers, heartbeats, updates int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.registers), len(f.heartbeatTimes), len(f.updates)
}

// remove deletes allocs as the servers' garbage collection does: a new
// index, and no alloc's AllocModifyIndex moves.
func (f *fakeServers) remove(ids ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.index++
	for _, id := range ids {
		delete(f.allocs, id)
	}
	close(f.changed)
	f.changed = make(chan struct{})
}
