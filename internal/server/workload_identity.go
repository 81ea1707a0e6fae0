package server

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// WorkloadIdentityEndpoint is the WorkloadIdentity.* family.
type WorkloadIdentityEndpoint struct{ srv *Server }

// Sign issues the tokens of an alloc's tasks to the node running it.
func (e *WorkloadIdentityEndpoint) Sign(ctx context.Context, args *structs.WorkloadIdentitySignRequest) (*structs.WorkloadIdentitySignResponse, error) {
	reply := &structs.WorkloadIdentitySignResponse{}
	if _, err := (&NodeEndpoint{srv: e.srv}).authenticate(args.NodeID, args.SecretID); err != nil {
		return nil, err
	}
	alloc, err := e.srv.State().AllocByID(nil, args.AllocID)
	if err != nil {
		return nil, err
	}
	if alloc == nil || alloc.NodeID != args.NodeID {
		return nil, BadRequest("AllocID: allocation %q is not on node %s", args.AllocID, args.NodeID)
	}
	if alloc.ServerTerminalStatus() || alloc.ClientTerminalStatus() {
		return nil, BadRequest("AllocID: allocation %q has stopped", args.AllocID)
	}
	reply.Tokens = map[string]string{}
	for _, task := range args.Tasks {
		if reply.Tokens[task], err = e.srv.auth.SignIdentity(alloc, task); err != nil {
			return nil, err
		}
	}
	for i, req := range args.Identities {
		// The job says what an identity is (audience, TTL), never the
		// client: a node can only ask for the identities its allocs'
		// tasks declare.
		task := alloc.Group().LookupTask(req.Task)
		if task == nil {
			return nil, BadRequest("Identities[%d].Task: allocation %q has no task %q", i, args.AllocID, req.Task)
		}
		w := task.IdentityNamed(req.Identity)
		if w == nil {
			return nil, BadRequest("Identities[%d].Identity: task %q has no identity %q", i, req.Task, req.Identity)
		}
		token, exp, err := e.srv.auth.SignWorkloadIdentity(alloc, req.Task, w)
		if err != nil {
			return nil, err
		}
		reply.Signed = append(reply.Signed, structs.SignedWorkloadIdentity{WorkloadIdentityRequest: req, JWT: token, Expiration: exp})
	}
	reply.Index = e.srv.State().Index(state.TableRootKeys)
	return reply, nil
}

// OIDCDiscovery answers the OIDC discovery document that lets other
// systems (a cloud's workload identity federation, a secrets store's JWT
// auth) find the keys that verify workload identities: the issuer is
// server { oidc_issuer } and the keys are at <issuer>/.well-known/jwks.json,
// as Nomad serves them. Without oidc_issuer it is a 404, as in Nomad.
func (e *WorkloadIdentityEndpoint) OIDCDiscovery(ctx context.Context, args *structs.OIDCDiscoveryRequest) (*structs.OIDCDiscoveryResponse, error) {
	issuer := e.srv.config.OIDCIssuer
	if issuer == "" {
		return nil, NotFound("OIDC discovery is not configured: set server { oidc_issuer } to the URL other systems reach this cluster's /.well-known/ at")
	}
	return &structs.OIDCDiscoveryResponse{
		Issuer: issuer, JWKSURI: strings.TrimSuffix(issuer, "/") + "/.well-known/jwks.json",
		SigningAlgs: []string{"EdDSA"}, ResponseTypes: []string{"code"}, SubjectTypes: []string{"public"},
	}, nil
}

// JWKS answers the public keys of every root key.
func (e *WorkloadIdentityEndpoint) JWKS(ctx context.Context, args *structs.JWKSRequest) (*structs.JWKSResponse, error) {
	reply := &structs.JWKSResponse{}
	err := e.srv.blockingRead(ctx, &args.QueryOptions, &reply.QueryMeta, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		keys, err := st.RootKeys(ws)
		reply.Keys = make([]structs.JSONWebKey, 0, len(keys))
		for _, k := range keys {
			pub, err := e.srv.auth.IdentityPublicKey(k)
			if err != nil {
				return 0, err
			}
			reply.Keys = append(reply.Keys, structs.JSONWebKey{KeyID: k.KeyID, KeyType: "OKP", Curve: "Ed25519",
				X: base64.RawURLEncoding.EncodeToString(pub), Use: "sig", Algorithm: "EdDSA"})
		}
		return st.Index(state.TableRootKeys), err
	})
	return reply, err
}
