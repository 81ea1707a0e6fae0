package agent

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

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
