package agent

import (
	"net/http"

	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) allocRoutes() {
	h.handle("GET /v1/allocations", h.allocList)
	h.handle("GET /v1/allocation/{id}", h.allocGet)
}

func (h *HTTPServer) allocList(w http.ResponseWriter, r *http.Request) (any, error) {
	lo, err := parseList(r)
	if err != nil {
		return nil, err
	}
	var allocs []*structs.Allocation
	if err := h.read(w, r, func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		allocs, err = st.AllocsByIDPrefix(ws, q.Namespace, lo.Prefix)
		return st.Index("allocs"), err
	}); err != nil {
		return nil, err
	}
	return paginate(w, allocStubs(allocs), func(a *api.AllocationListStub) string { return a.ID }, lo)
}

func (h *HTTPServer) allocGet(w http.ResponseWriter, r *http.Request) (any, error) {
	alloc, err := readOne(h, w, r, "allocation", "allocs", func(_ server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (*structs.Allocation, error) {
		return st.AllocByID(ws, r.PathValue("id"))
	}, func(a *structs.Allocation) uint64 { return a.ModifyIndex })
	if err != nil {
		return nil, err
	}
	return apiconv.AllocFromStructs(alloc), nil
}
