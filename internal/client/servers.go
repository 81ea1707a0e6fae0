package client

import (
	"context"
	"errors"
	"strings"

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

// ErrNodeNotFound is what a Servers implementation returns (or wraps) when
// the servers do not know the node, e.g. after it was garbage collected;
// the client then registers again. An error whose text contains "node"
// and "not found" is treated the same, since RPC errors lose their type.
var ErrNodeNotFound = errors.New("node not found")

func isNodeNotFound(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrNodeNotFound) {
		return true
	}
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "node") && strings.Contains(s, "not found")
}
