package agent

import (
	"net/http"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// allocListTables are the state tables (state.Table*; the agent does not
// import state) an alloc listing reads: its index. A wrong name never
// hits (TestListReplyCache_BlockingWakesOnFirstChange).
var allocListTables = []string{"allocs"}

func (h *HTTPServer) allocList(w http.ResponseWriter, r *http.Request) (any, error) {
	opts, err := allocStubParams(r)
	if err != nil {
		return nil, err
	}
	return h.cachedList(w, r, allocListTables, func() (any, error) {
		reply, err := readEndpoint(w, r, server.AllocList.On(h.srv), &structs.AllocListRequest{})
		if err != nil {
			return nil, err
		}
		return encodedList(h.stubs.allocs, reply.Allocations, opts.variant(), allocVersion, opts.view)
	})
}

func (h *HTTPServer) allocGet(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	reply, err := readEndpoint(w, r, server.AllocGetAlloc.On(h.srv), &structs.AllocSpecificRequest{AllocID: id})
	return oneOf(reply.Alloc, apiconv.AllocFromStructs, err, "allocation %q not found", id)
}
