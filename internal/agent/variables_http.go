package agent

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// jwks answers the public keys that verify workload identities.
func (h *HTTPServer) jwks(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.WorkloadIdentityJWKS.On(h.srv), &structs.JWKSRequest{})
	if err != nil {
		return nil, err
	}
	return struct {
		Keys []structs.JSONWebKey `json:"keys"`
	}{reply.Keys}, nil
}

// oidcDiscovery answers the OIDC discovery document of workload
// identities.
func (h *HTTPServer) oidcDiscovery(w http.ResponseWriter, r *http.Request) (any, error) {
	return readEndpoint(w, r, server.WorkloadIdentityOIDCDiscovery.On(h.srv), &structs.OIDCDiscoveryRequest{})
}

func (h *HTTPServer) variableList(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.VariablesList.On(h.srv), &structs.VariablesListRequest{})
	return listOf(reply.Data, apiconv.VariableMetadataFromStructs, err)
}

func (h *HTTPServer) variableRead(w http.ResponseWriter, r *http.Request) (any, error) {
	path := r.PathValue("path")
	reply, err := readEndpoint(w, r, server.VariablesRead.On(h.srv), &structs.VariablesReadRequest{Path: path})
	return oneOf(reply.Data, apiconv.VariableFromStructs, err, "variable not found: %s", path)
}

// variableWrite answers PUT /v1/var/:path: a set (check-and-set with
// ?cas=N), or with ?lock-acquire, ?lock-renew, ?lock-release a lock
// operation. A conflict is a 409 whose body is the stored variable.
func (h *HTTPServer) variableWrite(w http.ResponseWriter, r *http.Request) (any, error) {
	var in api.Variable
	if err := decodeBody(w, r, &in); err != nil {
		return nil, err
	}
	v, err := apiconv.VariableToStructs(&in)
	if err != nil {
		return nil, server.BadRequest("%v", err)
	}
	if err := pathIDMatches("Path", in.Path, r.PathValue("path")); err != nil {
		return nil, err
	}
	v.Path = r.PathValue("path")
	op := structs.VarOpSet
	for _, lockOp := range []string{structs.VarOpLockAcquire, structs.VarOpLockRenew, structs.VarOpLockRelease} {
		if _, ok := r.URL.Query()[lockOp]; ok {
			op = lockOp
		}
	}
	return h.applyVariable(w, r, op, v)
}

func (h *HTTPServer) variableDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	out, err := h.applyVariable(w, r, structs.VarOpDelete, &structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Path: r.PathValue("path")}})
	if err != nil || out != nil {
		return out, err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil, nil
}

func (h *HTTPServer) applyVariable(w http.ResponseWriter, r *http.Request, op string, v *structs.VariableDecrypted) (any, error) {
	args := &structs.VariablesApplyArgs{Op: op, Var: v, WriteRequest: writeRequest(r)}
	if cas := r.URL.Query().Get("cas"); cas != "" {
		n, err := strconv.ParseUint(cas, 10, 64)
		if err != nil {
			return nil, server.BadRequest("cas: %q is not a modify index", cas)
		}
		args.CheckIndex = &n
	}
	reply, err := server.VariablesApply.Call(r.Context(), h.srv, args)
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	switch {
	case reply.Conflict != nil:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		_ = json.NewEncoder(w).Encode(apiconv.VariableFromStructs(reply.Conflict))
		return nil, nil
	case reply.Output == nil:
		return nil, nil
	case op == structs.VarOpLockRenew:
		return apiconv.VariableMetadataFromStructs(&reply.Output.VariableMetadata), nil
	}
	return apiconv.VariableFromStructs(reply.Output), nil
}

func (h *HTTPServer) keyringList(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.KeyringList.On(h.srv), &structs.KeyringListRequest{})
	return listOf(reply.Keys, apiconv.RootKeyMetaFromStructs, err)
}

// keyringRotate answers PUT /v1/operator/keyring/rotate. With
// `full=true` the servers also re-seal every variable with the new key in
// the background, then deprecate the old keys.
func (h *HTTPServer) keyringRotate(w http.ResponseWriter, r *http.Request) (any, error) {
	full := false
	if v := r.URL.Query().Get("full"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, server.BadRequest("full: %q is not a boolean", v)
		}
		full = b
	}
	if algo := r.URL.Query().Get("algo"); algo != "" && algo != structs.RootKeyAlgorithmAES256GCM {
		return nil, server.BadRequest("algo: %q is not supported (only %s)", algo, structs.RootKeyAlgorithmAES256GCM)
	}
	reply, err := server.KeyringRotate.Call(r.Context(), h.srv, &structs.KeyringRotateArgs{Full: full, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return struct{ Key *api.RootKeyMeta }{apiconv.RootKeyMetaFromStructs(reply.Key)}, nil
}

// keyringDelete answers DELETE /v1/operator/keyring/key/:id (`operator
// root keyring remove`, ?force=true to lose the variables it seals).
func (h *HTTPServer) keyringDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	force, err := boolParam(r, "force")
	if err != nil {
		return nil, err
	}
	reply, err := server.KeyringDelete.Call(r.Context(), h.srv, &structs.KeyringDeleteArgs{KeyID: r.PathValue("id"), Force: force, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}
