package agent

import (
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// Auth methods, binding rules and login (Nomad's /v1/acl/auth-method*,
// /v1/acl/binding-rule*, /v1/acl/login).

func (h *HTTPServer) aclAuthMethodList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	reply, err := server.ACLListAuthMethods.Call(r.Context(), h.srv, &structs.ACLAuthMethodListRequest{QueryOptions: q})
	if err != nil {
		return nil, err
	}
	setMeta(w, reply.QueryMeta)
	out := make([]*api.ACLAuthMethodListStub, 0, len(reply.AuthMethods))
	for _, m := range reply.AuthMethods {
		out = append(out, apiconv.ACLAuthMethodStub(m))
	}
	return out, nil
}

// aclAuthMethodUpsert creates (POST /v1/acl/auth-method) or updates
// (/v1/acl/auth-method/{name}) an auth method.
func (h *HTTPServer) aclAuthMethodUpsert(w http.ResponseWriter, r *http.Request) (any, error) {
	var raw json.RawMessage
	if err := decodeBody(w, r, &raw); err != nil {
		return nil, err
	}
	// api.ACLAuthMethod decodes itself with json.Unmarshal, which drops
	// unknown keys: check them first, the config's too.
	if err := knownKeys(raw, reflect.TypeFor[api.ACLAuthMethod](), ""); err != nil {
		return nil, err
	}
	var in api.ACLAuthMethod
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, server.BadRequest("request body: %v", err)
	}
	if name := r.PathValue("name"); name != "" {
		if in.Name != "" && in.Name != name {
			return nil, server.BadRequest("Name: %q does not match the path's %q", in.Name, name)
		}
		in.Name = name
	}
	if in.Config != nil && in.Config.OIDCClientAssertion != nil {
		return nil, server.BadRequest("Config.OIDCClientAssertion: not supported by Drover (OIDC methods authenticate with OIDCClientSecret)")
	}
	reply, err := server.ACLUpsertAuthMethods.Call(r.Context(), h.srv, &structs.ACLAuthMethodUpsertArgs{
		AuthMethods: []*structs.ACLAuthMethod{apiconv.ACLAuthMethodToStructs(&in)}, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return apiconv.ACLAuthMethodFromStructs(reply.AuthMethods[0]), nil
}

func (h *HTTPServer) aclAuthMethodGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	name := r.PathValue("name")
	reply, err := server.ACLGetAuthMethod.Call(r.Context(), h.srv, &structs.ACLAuthMethodGetRequest{Name: name, QueryOptions: q})
	if err != nil {
		return nil, err
	}
	setMeta(w, reply.QueryMeta)
	if reply.AuthMethod == nil {
		return nil, server.NotFound("ACL auth method %q not found", name)
	}
	return apiconv.ACLAuthMethodFromStructs(reply.AuthMethod), nil
}

func (h *HTTPServer) aclAuthMethodDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.ACLDeleteAuthMethods.Call(r.Context(), h.srv, &structs.ACLAuthMethodDeleteArgs{
		Names: []string{r.PathValue("name")}, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

func (h *HTTPServer) aclBindingRuleList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	reply, err := server.ACLListBindingRules.Call(r.Context(), h.srv, &structs.ACLBindingRuleListRequest{QueryOptions: q})
	if err != nil {
		return nil, err
	}
	setMeta(w, reply.QueryMeta)
	out := make([]*api.ACLBindingRuleListStub, 0, len(reply.BindingRules))
	for _, b := range reply.BindingRules {
		out = append(out, apiconv.ACLBindingRuleStub(b))
	}
	return out, nil
}

// aclBindingRuleUpsert creates (no {id} in the route) or updates a rule.
func (h *HTTPServer) aclBindingRuleUpsert(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	var in api.ACLBindingRule
	if err := decodeBody(w, r, &in); err != nil {
		return nil, err
	}
	if err := serverAssignedID("ID", in.ID, id, "POST /v1/acl/binding-rule/:id"); err != nil {
		return nil, err
	}
	in.ID = id
	reply, err := server.ACLUpsertBindingRules.Call(r.Context(), h.srv, &structs.ACLBindingRuleUpsertArgs{
		BindingRules: []*structs.ACLBindingRule{apiconv.ACLBindingRuleToStructs(&in)}, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return apiconv.ACLBindingRuleFromStructs(reply.BindingRules[0]), nil
}

func (h *HTTPServer) aclBindingRuleGet(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	reply, err := server.ACLGetBindingRule.Call(r.Context(), h.srv, &structs.ACLBindingRuleGetRequest{ID: id, QueryOptions: q})
	if err != nil {
		return nil, err
	}
	setMeta(w, reply.QueryMeta)
	if reply.BindingRule == nil {
		return nil, server.NotFound("ACL binding rule %q not found", id)
	}
	return apiconv.ACLBindingRuleFromStructs(reply.BindingRule), nil
}

func (h *HTTPServer) aclBindingRuleDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.ACLDeleteBindingRules.Call(r.Context(), h.srv, &structs.ACLBindingRuleDeleteArgs{
		IDs: []string{r.PathValue("id")}, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

// aclLogin exchanges a JWT for an ACL token (PUT /v1/acl/login).
func (h *HTTPServer) aclLogin(w http.ResponseWriter, r *http.Request) (any, error) {
	var in api.ACLLoginRequest
	if err := decodeBody(w, r, &in); err != nil {
		return nil, err
	}
	reply, err := server.ACLLogin.Call(r.Context(), h.srv, &structs.ACLLoginArgs{
		AuthMethodName: in.AuthMethodName, LoginToken: in.LoginToken, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return apiconv.ACLTokenFromStructs(reply.Tokens[0]), nil
}

// aclOIDCAuthURL begins an OIDC login (PUT/POST /v1/acl/oidc/auth-url).
func (h *HTTPServer) aclOIDCAuthURL(w http.ResponseWriter, r *http.Request) (any, error) {
	var in api.ACLOIDCAuthURLRequest
	if err := decodeBody(w, r, &in); err != nil {
		return nil, err
	}
	reply, err := server.ACLOIDCAuthURL.Call(r.Context(), h.srv, &structs.ACLOIDCAuthURLArgs{AuthMethodName: in.AuthMethodName,
		RedirectURI: in.RedirectURI, ClientNonce: in.ClientNonce, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.ACLOIDCAuthURLResponse{AuthURL: reply.AuthURL}, nil
}

// aclOIDCCompleteAuth finishes an OIDC login (PUT/POST
// /v1/acl/oidc/complete-auth) and answers the minted token.
func (h *HTTPServer) aclOIDCCompleteAuth(w http.ResponseWriter, r *http.Request) (any, error) {
	var in api.ACLOIDCCompleteAuthRequest
	if err := decodeBody(w, r, &in); err != nil {
		return nil, err
	}
	reply, err := server.ACLOIDCCompleteAuth.Call(r.Context(), h.srv, &structs.ACLOIDCCompleteAuthArgs{AuthMethodName: in.AuthMethodName,
		ClientNonce: in.ClientNonce, State: in.State, Code: in.Code, Iss: in.Iss, RedirectURI: in.RedirectURI, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return apiconv.ACLTokenFromStructs(reply.Tokens[0]), nil
}

// aclOneTimeTokenCreate makes a one-time token for the caller's token
// (POST /v1/acl/token/onetime).
func (h *HTTPServer) aclOneTimeTokenCreate(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.ACLUpsertOneTimeToken.Call(r.Context(), h.srv, &structs.ACLOneTimeTokenUpsertArgs{WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	o := reply.OneTimeToken
	return &api.OneTimeTokenUpsertResponse{OneTimeToken: &api.OneTimeToken{OneTimeSecretID: o.OneTimeSecretID,
		AccessorID: o.AccessorID, ExpiresAt: o.ExpiresAt, CreateIndex: o.CreateIndex, ModifyIndex: o.ModifyIndex}}, nil
}

// aclOneTimeTokenExchange trades a one-time secret for its ACL token
// (POST /v1/acl/token/onetime/exchange).
func (h *HTTPServer) aclOneTimeTokenExchange(w http.ResponseWriter, r *http.Request) (any, error) {
	var in api.OneTimeTokenExchangeRequest
	if err := decodeBody(w, r, &in); err != nil {
		return nil, err
	}
	reply, err := server.ACLExchangeOneTimeToken.Call(r.Context(), h.srv, &structs.ACLOneTimeTokenExchangeArgs{
		OneTimeSecretID: in.OneTimeSecretID, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return &api.OneTimeTokenExchangeResponse{Token: apiconv.ACLTokenFromStructs(reply.Token)}, nil
}

// knownKeys refuses a key of the JSON object raw that is not a field of
// t, naming it; it descends into the auth method's Config.
func knownKeys(raw json.RawMessage, t reflect.Type, prefix string) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil // not an object: the typed decode reports it
	}
	fields := map[string]reflect.Type{}
	for _, f := range reflect.VisibleFields(t) {
		fields[f.Name] = f.Type
	}
	for k, v := range obj {
		ft, ok := fields[k]
		if !ok {
			return server.BadRequest("request body: unknown field %q", prefix+k)
		}
		if k == "Config" && ft.Kind() == reflect.Pointer {
			if err := knownKeys(v, ft.Elem(), "Config."); err != nil {
				return err
			}
		}
	}
	return nil
}
