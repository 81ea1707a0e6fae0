package server

import (
	"context"

	"github.com/drover-project/drover/internal/server/leader"
	"github.com/drover-project/drover/internal/structs"
)

// SystemEndpoint is the System.* endpoint family.
type SystemEndpoint struct{ srv *Server }

// GarbageCollect writes a force-gc core eval: it collects every terminal
// eval and stopped job now, whatever its age.
func (e *SystemEndpoint) GarbageCollect(ctx context.Context, args *structs.GenericWriteArgs) (*structs.GenericResponse, error) {
	reply := &structs.GenericResponse{}
	return reply, e.srv.leader.CreateCoreEvals(leader.CoreJobForceGC)
}
