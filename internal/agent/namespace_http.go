package agent

import (
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) namespaceList(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.NamespaceList.On(h.srv), &structs.NamespaceListRequest{})
	return listOf(reply.Namespaces, namespaceToAPI, err)
}

func (h *HTTPServer) namespaceGet(w http.ResponseWriter, r *http.Request) (any, error) {
	name := r.PathValue("name")
	reply, err := readEndpoint(w, r, server.NamespaceGet.On(h.srv), &structs.NamespaceSpecificRequest{Name: name})
	return oneOf(reply.Namespace, namespaceToAPI, err, "namespace %q not found", name)
}

// namespaceUpsert answers PUT/POST /v1/namespace[/:name]. A name in the
// path must match the body's (an empty body name takes the path's).
func (h *HTTPServer) namespaceUpsert(w http.ResponseWriter, r *http.Request) (any, error) {
	var in api.Namespace
	if err := decodeBody(w, r, &in); err != nil {
		return nil, err
	}
	if name := r.PathValue("name"); name != "" {
		if in.Name == "" {
			in.Name = name
		}
		if in.Name != name {
			return nil, server.BadRequest("Name: %q in the body does not match %q in the path", in.Name, name)
		}
	}
	reply, err := server.NamespaceUpsert.Call(r.Context(), h.srv, &structs.NamespaceUpsertRequest{
		Namespaces:   []*structs.Namespace{{Name: in.Name, Description: in.Description, Meta: in.Meta}},
		WriteRequest: writeRequest(r),
	})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

func (h *HTTPServer) namespaceDelete(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.NamespaceDelete.Call(r.Context(), h.srv, &structs.NamespaceDeleteRequest{
		Namespaces: []string{r.PathValue("name")}, WriteRequest: writeRequest(r),
	})
	if err != nil {
		return nil, err
	}
	setIndex(w, reply.Index)
	return nil, nil
}

func namespaceToAPI(ns *structs.Namespace) *api.Namespace {
	return &api.Namespace{
		Name: ns.Name, Description: ns.Description, Meta: ns.Meta,
		CreateIndex: ns.CreateIndex, ModifyIndex: ns.ModifyIndex,
	}
}
