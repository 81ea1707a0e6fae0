package server

import (
	"context"
	"net/http"

	"github.com/drover-project/drover/internal/structs"
)

// InstallKEK takes the cluster's KEK from the leader. It is this server's
// own business (never forwarded); the KEK must open a root key this
// server holds, so the caller proves it already had the secret.
func (e *KeyringEndpoint) InstallKEK(ctx context.Context, args *structs.KeyringInstallKEKRequest) (*structs.KeyringInstallKEKResponse, error) {
	if err := e.srv.auth.InstallKEK(args.KEK); err != nil {
		return nil, NewCodedError(http.StatusBadRequest, "%v", err)
	}
	return &structs.KeyringInstallKEKResponse{}, nil
}
