package agent

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// aclBootstrap answers PUT /v1/acl/bootstrap; the body (optional) may
// carry the operator's chosen BootstrapSecret.
func (h *HTTPServer) aclBootstrap(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.BootstrapRequest
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBodyBytes))
	if err != nil {
		return nil, bodyError(err)
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return nil, bodyError(err)
		}
	}
	reply, err := server.ACLBootstrap.Call(r.Context(), h.srv, &structs.ACLBootstrapArgs{BootstrapSecret: req.BootstrapSecret, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return apiconv.ACLTokenFromStructs(reply.Tokens[0]), nil
}

func (h *HTTPServer) aclPolicyList(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.ACLListPolicies.On(h.srv), &structs.ACLPolicyListRequest{})
	return listOf(reply.Policies, apiconv.ACLPolicyStub, err)
}

func (h *HTTPServer) aclPolicyGet(w http.ResponseWriter, r *http.Request) (any, error) {
	name := r.PathValue("name")
	reply, err := readEndpoint(w, r, server.ACLGetPolicy.On(h.srv), &structs.ACLPolicySpecificRequest{Name: name})
	return oneOf(reply.Policy, apiconv.ACLPolicyFromStructs, err, "ACL policy %q not found", name)
}

// aclPolicySelf answers GET /v1/acl/policy/self: the policies of the
// caller's token, its roles' included, as stubs (api.ACLPolicies.Self).
func (h *HTTPServer) aclPolicySelf(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.ACLGetPolicySelf.On(h.srv), &structs.QueryOptions{})
	return listOf(reply.Policies, apiconv.ACLPolicyStub, err)
}

func (h *HTTPServer) aclPolicyPut(w http.ResponseWriter, r *http.Request) (any, error) {
	var p api.ACLPolicy
	if err := decodeBody(w, r, &p); err != nil {
		return nil, err
	}
	name := r.PathValue("name")
	if p.Name == "" {
		p.Name = name
	}
	if p.Name != name {
		return nil, server.BadRequest("Name: %q does not match the path's policy name %q", p.Name, name)
	}
	if p.JobACL != nil {
		return nil, server.BadRequest("JobACL: workload-associated policies are not supported")
	}
	reply, err := server.ACLUpsertPolicies.Call(r.Context(), h.srv, &structs.ACLPolicyUpsertArgs{
		Policies: []*structs.ACLPolicy{apiconv.ACLPolicyToStructs(&p)}, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

func (h *HTTPServer) aclPolicyDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.ACLDeletePolicies.Call(r.Context(), h.srv, &structs.ACLPolicyDeleteArgs{Names: []string{r.PathValue("name")}, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

func (h *HTTPServer) aclTokenList(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.ACLListTokens.On(h.srv), &structs.ACLTokenListRequest{})
	return listOf(reply.Tokens, apiconv.ACLTokenStub, err)
}

// aclTokenUpsert creates (no {accessor} in the route) or updates/uploads a token.
func (h *HTTPServer) aclTokenUpsert(w http.ResponseWriter, r *http.Request) (any, error) {
	accessor := r.PathValue("accessor") // "" on the create route
	var t api.ACLToken
	if err := decodeBody(w, r, &t); err != nil {
		return nil, err
	}
	if err := serverAssignedID("AccessorID", t.AccessorID, accessor, "PUT /v1/acl/token/:accessor"); err != nil {
		return nil, err
	}
	t.AccessorID = accessor
	reply, err := server.ACLUpsertTokens.Call(r.Context(), h.srv, &structs.ACLTokenUpsertArgs{
		Tokens: []*structs.ACLToken{apiconv.ACLTokenToStructs(&t)}, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return apiconv.ACLTokenFromStructs(reply.Tokens[0]), nil
}

// serverAssignedID checks the ID in a create-or-update body against the
// path's: a create (pathID "") leaves it to the server, an update may
// only repeat it.
func serverAssignedID(field, bodyID, pathID, updateRoute string) error {
	switch {
	case pathID == "" && bodyID != "":
		return server.BadRequest("%s: set by the server; %s to update", field, updateRoute)
	case pathID != "" && bodyID != "" && bodyID != pathID:
		return server.BadRequest("%s: %q does not match the path's %q", field, bodyID, pathID)
	}
	return nil
}

func (h *HTTPServer) aclTokenSelf(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.ACLGetTokenSelf.On(h.srv), &structs.QueryOptions{})
	if err != nil {
		return nil, err
	}
	return apiconv.ACLTokenFromStructs(reply.Token), nil
}

func (h *HTTPServer) aclTokenGet(w http.ResponseWriter, r *http.Request) (any, error) {
	accessor := r.PathValue("accessor")
	reply, err := readEndpoint(w, r, server.ACLGetToken.On(h.srv), &structs.ACLTokenSpecificRequest{AccessorID: accessor})
	return oneOf(reply.Token, apiconv.ACLTokenFromStructs, err, "ACL token %q not found", accessor)
}

func (h *HTTPServer) aclTokenDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.ACLDeleteTokens.Call(r.Context(), h.srv, &structs.ACLTokenDeleteArgs{AccessorIDs: []string{r.PathValue("accessor")}, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}
