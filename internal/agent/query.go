package agent

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// listOptions are the list-endpoint query parameters.
type listOptions struct {
	Prefix    string
	PerPage   int
	NextToken string
	Filter    string
	Reverse   bool
}

// parseQuery reads the options every read accepts: blocking (index,
// wait), stale, namespace, the list options (prefix, filter, per_page,
// next_token, reverse) and the caller's ACL token.
func parseQuery(r *http.Request) (server.QueryOptions, error) {
	q := r.URL.Query()
	opts := server.QueryOptions{
		Region: q.Get("region"), Namespace: q.Get("namespace"), AuthToken: requestToken(r),
		Prefix: q.Get("prefix"), Filter: q.Get("filter"), NextToken: q.Get("next_token"),
	}
	if opts.Namespace == "" {
		opts.Namespace = structs.DefaultNamespace
	}
	if v := q.Get("index"); v != "" {
		idx, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return opts, server.BadRequest("index: %q is not a non-negative integer", v)
		}
		opts.MinQueryIndex = idx
	}
	if v := q.Get("wait"); v != "" {
		d, err := parseWait(v)
		if err != nil {
			return opts, server.BadRequest("wait: %v", err)
		}
		opts.MaxQueryTime = d
	}
	// ?stale (no value) or ?stale=true allows a follower to answer.
	if _, ok := q["stale"]; ok {
		stale, err := boolParamDefault(r, "stale", true)
		if err != nil {
			return opts, err
		}
		opts.AllowStale = stale
	}
	if v := q.Get("per_page"); v != "" {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 0 {
			return opts, server.BadRequest("per_page: %q is not a non-negative integer", v)
		}
		opts.PerPage = int32(n)
	}
	reverse, err := boolParam(r, "reverse")
	opts.Reverse = reverse
	return opts, err
}

// writeRequest reads the options every write accepts.
func writeRequest(r *http.Request) structs.WriteRequest {
	q := r.URL.Query()
	ns := q.Get("namespace")
	if ns == "" {
		ns = structs.DefaultNamespace
	}
	return structs.WriteRequest{Region: q.Get("region"), Namespace: ns, AuthToken: requestToken(r), IdempotencyToken: q.Get("idempotency_token")}
}

// requestToken is the caller's ACL secret: X-Nomad-Token, else an
// "Authorization: Bearer" header.
func requestToken(r *http.Request) string {
	if t := r.Header.Get("X-Nomad-Token"); t != "" {
		return t
	}
	if auth := r.Header.Get("Authorization"); len(auth) > 7 && strings.EqualFold(auth[:7], "Bearer ") {
		return strings.TrimSpace(auth[7:])
	}
	return ""
}

// parseWait accepts Go durations ("5s", "5000ms") and bare milliseconds.
func parseWait(v string) (time.Duration, error) {
	if n, err := strconv.ParseUint(v, 10, 64); err == nil {
		return time.Duration(n) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, server.BadRequest("%q is not a duration", v)
	}
	return d, nil
}

// parseList reads the list-endpoint parameters.
func parseList(r *http.Request) (listOptions, error) {
	q := r.URL.Query()
	lo := listOptions{Prefix: q.Get("prefix"), NextToken: q.Get("next_token"), Filter: q.Get("filter")}
	if v := q.Get("per_page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return lo, server.BadRequest("per_page: %q is not a non-negative integer", v)
		}
		lo.PerPage = n
	}
	if v := q.Get("reverse"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return lo, server.BadRequest("reverse: %q is not a boolean", v)
		}
		lo.Reverse = b
	}
	return lo, nil
}

// boolParam reads an optional boolean parameter.
func boolParam(r *http.Request, name string) (bool, error) {
	return boolParamDefault(r, name, false)
}

// boolParamDefault reads an optional boolean parameter; present without a
// value, it is def.
func boolParamDefault(r *http.Request, name string, def bool) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def && r.URL.Query().Has(name), nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, server.BadRequest("%s: %q is not a boolean", name, v)
	}
	return b, nil
}

// readFunc is one blocking read: it may use the query's namespace, adds
// what it reads to ws, and returns the answer's index.
type readFunc func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error)

// read parses the blocking-query parameters, runs fn as a blocking query
// and writes the X-Nomad-* headers of its answer.
func (h *HTTPServer) read(w http.ResponseWriter, r *http.Request, fn readFunc) error {
	q, err := parseQuery(r)
	if err != nil {
		return err
	}
	meta, err := h.srv.BlockingQuery(r.Context(), q, func(ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		return fn(q, ws, st)
	})
	if err != nil {
		return err
	}
	setMeta(w, meta)
	return nil
}

// readOne answers a single-object GET: a blocking read of get, whose
// answer's index is the object's modify index (or the table's while it
// is absent), and a 404 naming what when there is none.
func readOne[T any](h *HTTPServer, w http.ResponseWriter, r *http.Request, what, table string,
	get func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (*T, error), modifyIndex func(*T) uint64) (*T, error) {
	var obj *T
	if err := h.read(w, r, func(q server.QueryOptions, ws memdb.WatchSet, st *state.StateStore) (uint64, error) {
		var err error
		if obj, err = get(q, ws, st); obj != nil {
			return modifyIndex(obj), err
		}
		return st.Index(table), err
	}); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, server.NotFound("%s %q not found", what, r.PathValue("id"))
	}
	return obj, nil
}
