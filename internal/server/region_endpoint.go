package server

import (
	"context"

	"github.com/drover-project/drover/internal/structs"
)

// RegionEndpoint is the Region.* endpoint family.
type RegionEndpoint struct{ srv *Server }

// List answers the regions this server knows: its own (Drover does not
// federate regions).
func (e *RegionEndpoint) List(ctx context.Context, _ *structs.QueryOptions) (*structs.RegionListResponse, error) {
	return &structs.RegionListResponse{Regions: []string{e.srv.config.Region}}, nil
}
