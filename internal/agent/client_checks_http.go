package agent

import (
	"net/http"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/client/checks"
)

func (h *HTTPServer) clientCheckRoutes() {
	h.allocHandler("GET /v1/client/allocation/{id}/checks", h.allocChecks)
}

// allocChecks answers GET /v1/client/allocation/:id/checks: the latest
// result of each service check the client runs for the alloc, by check ID,
// in Nomad's terms (Status success / failure, Group the alloc's name).
func (h *HTTPServer) allocChecks(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	results, group, err := c.AllocChecks(allocID)
	if err != nil {
		return nil, clientError(err)
	}
	out := api.AllocCheckStatuses{}
	for _, res := range results {
		if res.Status == "" {
			continue // not run yet
		}
		var ts int64 // 0 until the first result (an initial_status has none)
		if !res.Timestamp.IsZero() {
			ts = res.Timestamp.Unix()
		}
		out[res.Check.ID] = api.AllocCheckStatus{
			ID: res.Check.ID, Check: res.Check.Name, Group: group, Mode: "healthiness",
			Output: res.Output, Service: res.Check.Service, Task: res.Check.Task,
			Status: apiCheckStatus(res.Status), StatusCode: res.StatusCode, Timestamp: ts,
		}
	}
	return out, nil
}

// apiCheckStatus names a result as Nomad's checks endpoint does: success,
// failure or pending (a script check's warning is not a success).
func apiCheckStatus(status string) string {
	switch status {
	case checks.StatusPassing:
		return "success"
	case checks.StatusPending:
		return "pending"
	}
	return "failure"
}
