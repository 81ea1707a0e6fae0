package client

import (
	"context"
	"errors"

	"github.com/drover-project/drover/internal/structs"
)

// Servers is how the client reaches the cluster. The lead implements it
// over RPC (with failover between servers); tests use a fake or an
// in-process adapter.
type Servers interface {
	Register(ctx context.Context, args *structs.NodeRegisterArgs) (*structs.NodeUpdateResponse, error)
	Heartbeat(ctx context.Context, args *structs.NodeHeartbeatArgs) (*structs.NodeUpdateResponse, error)
	// GetAllocIndexes is the pull of the node's allocs
	// (Node.GetClientAllocIndexes): the AllocModifyIndex of each, by ID.
	// A blocking query: it returns when the index passes
	// args.MinQueryIndex or after args.MaxQueryTime.
	GetAllocIndexes(ctx context.Context, args *structs.NodeAllocsArgs) (*structs.NodeClientAllocsResponse, error)
	// FetchAllocs returns the node's allocs named by ID (Alloc.GetAllocs),
	// leaving out those the servers no longer hold.
	FetchAllocs(ctx context.Context, args *structs.AllocsGetArgs) (*structs.AllocsGetResponse, error)
	UpdateAllocs(ctx context.Context, args *structs.AllocClientUpdateArgs) (*structs.GenericResponse, error)
}

// isNodeNotFound reports whether the servers do not know the node (e.g.
// it was garbage collected): a Servers implementation returns or wraps
// structs.ErrNodeNotFound, and the client then registers again.
func isNodeNotFound(err error) bool { return errors.Is(err, structs.ErrNodeNotFound) }
