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
	// GetAllocs is a blocking query: it returns when the index passes
	// args.MinQueryIndex or after args.MaxQueryTime.
	GetAllocs(ctx context.Context, args *structs.NodeAllocsArgs) (*structs.NodeAllocsResponse, error)
	UpdateAllocs(ctx context.Context, args *structs.AllocClientUpdateArgs) (*structs.GenericResponse, error)
}

// isNodeNotFound reports whether the servers do not know the node (e.g.
// it was garbage collected): a Servers implementation returns or wraps
// structs.ErrNodeNotFound, and the client then registers again.
func isNodeNotFound(err error) bool { return errors.Is(err, structs.ErrNodeNotFound) }
