package agent

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// The insight answers (go doc ./internal/server/insight): why a job is not
// placed, what a drain or a node loss would do, how much more fits. They
// are Drover's own endpoints; the replies are the structs as they are.

// jobExplain is GET /v1/job/:id/explain?group=G&node=N&nodes=true.
func (h *HTTPServer) jobExplain(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := knownParams(r, "group", "node", "nodes"); err != nil {
		return nil, err
	}
	nodes, err := boolParam(r, "nodes")
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	return readEndpoint(w, r, server.JobExplain.On(h.srv), &structs.JobExplainRequest{
		JobID: r.PathValue("id"), Group: q.Get("group"), Node: q.Get("node"), Nodes: nodes})
}

// jobHeadroom is GET /v1/job/:id/headroom?group=G.
func (h *HTTPServer) jobHeadroom(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := knownParams(r, "group"); err != nil {
		return nil, err
	}
	return readEndpoint(w, r, server.JobHeadroom.On(h.srv), &structs.JobHeadroomRequest{JobID: r.PathValue("id"), Group: r.URL.Query().Get("group")})
}

// evalExplain is GET /v1/evaluation/:id/explain?nodes=true.
func (h *HTTPServer) evalExplain(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := knownParams(r, "nodes"); err != nil {
		return nil, err
	}
	nodes, err := boolParam(r, "nodes")
	if err != nil {
		return nil, err
	}
	return readEndpoint(w, r, server.EvalExplain.On(h.srv), &structs.EvalExplainRequest{EvalID: r.PathValue("id"), Nodes: nodes})
}

// whatIfBody is PUT|POST /v1/operator/whatif's body. Deadline is in
// nanoseconds with Nomad's api.DrainSpec encoding: 0 stops everything at
// once, -1 never; absent, drain's default of one hour.
type whatIfBody struct {
	Kind             string
	Nodes            []string
	Datacenter       string
	IgnoreSystemJobs bool
	Deadline         *time.Duration
}

// drainStrategyDeadline maps api.DrainSpec's encoding onto the drain
// strategy's (0: no deadline, -1: at once).
func drainStrategyDeadline(d *time.Duration) time.Duration {
	switch {
	case d == nil:
		return time.Hour
	case *d == 0:
		return -1
	case *d < 0:
		return 0
	}
	return *d
}

// operatorWhatIf is POST /v1/operator/whatif.
func (h *HTTPServer) operatorWhatIf(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := knownParams(r); err != nil {
		return nil, err
	}
	var body whatIfBody
	if err := decodeBody(w, r, &body); err != nil {
		return nil, err
	}
	return readEndpoint(w, r, server.OperatorWhatIf.On(h.srv), &structs.WhatIfRequest{Kind: body.Kind, Nodes: body.Nodes,
		Datacenter: body.Datacenter, IgnoreSystemJobs: body.IgnoreSystemJobs, Deadline: drainStrategyDeadline(body.Deadline)})
}

// operatorHeadroom is GET /v1/operator/headroom?cpu=&memory=&disk=&datacenters=a,b&pool=.
func (h *HTTPServer) operatorHeadroom(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := knownParams(r, "cpu", "memory", "disk", "datacenters", "pool"); err != nil {
		return nil, err
	}
	q := r.URL.Query()
	req := &structs.OperatorHeadroomRequest{NodePool: q.Get("pool")}
	for _, p := range []struct {
		name string
		to   *int
	}{{"cpu", &req.CPU}, {"memory", &req.MemoryMB}, {"disk", &req.DiskMB}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, server.BadRequest("%s: %q is not a non-negative integer", p.name, v)
			}
			*p.to = n
		}
	}
	if v := q.Get("datacenters"); v != "" {
		req.Datacenters = strings.Split(v, ",")
	}
	return readEndpoint(w, r, server.OperatorHeadroom.On(h.srv), req)
}

// knownParams refuses query parameters the endpoint does not act on: the
// answers are computed, not listed or watched, so of the options reads
// take only region, namespace, stale and token apply (index, wait, filter
// and the paging options are refused rather than ignored).
func knownParams(r *http.Request, names ...string) error {
	common := []string{"region", "namespace", "stale", "token"}
	for k := range r.URL.Query() {
		known := false
		for _, n := range append(names, common...) {
			if k == n {
				known = true
			}
		}
		if !known {
			return server.BadRequest("%s: unknown query parameter for %s", k, r.URL.Path)
		}
	}
	return nil
}
