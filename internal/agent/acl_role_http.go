package agent

import (
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) aclRoleList(w http.ResponseWriter, r *http.Request) (any, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	reply, err := server.ACLListRoles.Call(r.Context(), h.srv, &structs.ACLRoleListRequest{QueryOptions: q})
	if err != nil {
		return nil, err
	}
	setMeta(w, reply.QueryMeta)
	out := make([]*api.ACLRoleListStub, 0, len(reply.Roles))
	for _, role := range reply.Roles {
		out = append(out, apiconv.ACLRoleStub(role))
	}
	return out, nil
}

// aclRoleUpsert creates (no {id} in the route) or updates a role.
func (h *HTTPServer) aclRoleUpsert(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id") // "" on the create route
	var role api.ACLRole
	if err := decodeBody(w, r, &role); err != nil {
		return nil, err
	}
	if err := serverAssignedID("ID", role.ID, id, "POST /v1/acl/role/:id"); err != nil {
		return nil, err
	}
	role.ID = id
	reply, err := server.ACLUpsertRoles.Call(r.Context(), h.srv, &structs.ACLRoleUpsertArgs{
		Roles: []*structs.ACLRole{apiconv.ACLRoleToStructs(&role)}, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return apiconv.ACLRoleFromStructs(reply.Roles[0]), nil
}

func (h *HTTPServer) aclRoleGet(w http.ResponseWriter, r *http.Request) (any, error) {
	return h.aclRoleRead(w, r, &structs.ACLRoleSpecificRequest{ID: r.PathValue("id")})
}

func (h *HTTPServer) aclRoleGetByName(w http.ResponseWriter, r *http.Request) (any, error) {
	return h.aclRoleRead(w, r, &structs.ACLRoleSpecificRequest{Name: r.PathValue("name")})
}

func (h *HTTPServer) aclRoleRead(w http.ResponseWriter, r *http.Request, req *structs.ACLRoleSpecificRequest) (any, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	req.QueryOptions = q
	reply, err := server.ACLGetRole.Call(r.Context(), h.srv, req)
	if err != nil {
		return nil, err
	}
	setMeta(w, reply.QueryMeta)
	if reply.Role == nil {
		return nil, server.NotFound("ACL role %q not found", req.ID+req.Name)
	}
	return apiconv.ACLRoleFromStructs(reply.Role), nil
}

func (h *HTTPServer) aclRoleDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.ACLDeleteRoles.Call(r.Context(), h.srv, &structs.ACLRoleDeleteArgs{IDs: []string{r.PathValue("id")}, WriteRequest: writeRequest(r)})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}
