package agent

import (
	"net/http"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// systemGC answers PUT /v1/system/gc: a force-gc core eval collects every
// terminal eval and stopped job now, whatever its age.
func (h *HTTPServer) systemGC(w http.ResponseWriter, r *http.Request) (any, error) {
	_, err := server.SystemGarbageCollect.Call(r.Context(), h.srv, &structs.GenericWriteArgs{WriteRequest: writeRequest(r)})
	return nil, err
}
