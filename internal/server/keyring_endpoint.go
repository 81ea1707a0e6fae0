package server

import (
	"context"
	"net/http"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// KeyringEndpoint is the Keyring.* family (/v1/operator/keyring/*).
type KeyringEndpoint struct{ srv *Server }

// Rotate makes a new active key; the others become inactive and keep
// opening what they sealed. A full rotation also re-seals every variable
// with the new key in the background and then deprecates the old keys
// (auth/keyring_rekey.go).
func (e *KeyringEndpoint) Rotate(ctx context.Context, args *structs.KeyringRotateArgs) (*structs.KeyringRotateResponse, error) {
	reply := &structs.KeyringRotateResponse{}
	kek, err := e.srv.auth.KEKForNewKey(false)
	if err != nil {
		return nil, err
	}
	key, err := e.srv.auth.NewRootKey(kek)
	if err != nil {
		return nil, err
	}
	index, err := e.srv.raftApply(ctx, structs.RootKeyUpsertRequestType, &structs.RootKeyUpsertRequest{Key: key, Rotate: true})
	if err != nil {
		return nil, err
	}
	if args.Full {
		if err := e.srv.auth.StartRekey(key.KeyID); err != nil {
			return nil, err
		}
	}
	stored, err := e.srv.State().RootKeyByID(nil, key.KeyID)
	if err != nil || stored == nil {
		return nil, err
	}
	reply.Key, reply.Index = stored.Meta(), index
	return reply, nil
}

// List answers the keyring's keys without their material.
func (e *KeyringEndpoint) List(ctx context.Context, args *structs.KeyringListRequest) (*structs.KeyringListResponse, error) {
	reply := &structs.KeyringListResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		keys, err := st.RootKeys(ws)
		reply.Keys = make([]*structs.RootKey, 0, len(keys))
		for _, k := range keys {
			reply.Keys = append(reply.Keys, k.Meta())
		}
		return st.Index(state.TableRootKeys), err
	})
	return reply, err
}

// Delete removes a root key (`operator root keyring remove`). The active
// key is refused; so, unless forced, is a key that still seals variables,
// which would become unreadable.
func (e *KeyringEndpoint) Delete(ctx context.Context, args *structs.KeyringDeleteArgs) (*structs.KeyringDeleteResponse, error) {
	reply := &structs.KeyringDeleteResponse{}
	key, err := e.srv.State().RootKeyByID(nil, args.KeyID)
	if err != nil {
		return nil, err
	}
	if key == nil {
		return nil, NotFound("root key %q not found", args.KeyID)
	}
	if key.State == structs.RootKeyStateActive {
		return nil, BadRequest("KeyID: %s is the active root key; rotate first", key.KeyID)
	}
	sealed, err := e.srv.State().VariablesByKeyID(nil, key.KeyID)
	if err != nil {
		return nil, err
	}
	if len(sealed) > 0 && !args.Force {
		return nil, BadRequest("KeyID: %s still seals %d variables; remove with force to lose them", key.KeyID, len(sealed))
	}
	index, err := e.srv.raftApply(ctx, structs.RootKeyDeleteRequestType, &structs.RootKeyDeleteRequest{KeyID: key.KeyID})
	if err != nil {
		return nil, err
	}
	reply.Index = index
	return reply, nil
}

// InstallKEK takes the cluster's KEK from the leader. It is this server's
// own business (never forwarded); the KEK must open a root key this
// server holds, so the caller proves it already had the secret.
func (e *KeyringEndpoint) InstallKEK(ctx context.Context, args *structs.KeyringInstallKEKRequest) (*structs.KeyringInstallKEKResponse, error) {
	if err := e.srv.auth.InstallKEK(args.KEK); err != nil {
		return nil, NewCodedError(http.StatusBadRequest, "%v", err)
	}
	return &structs.KeyringInstallKEKResponse{}, nil
}
