package agent

import (
	"context"
	"net/http"

	"github.com/drover-project/drover/internal/server"

	"github.com/drover-project/drover/internal/structs"
)

// readRequest is a read endpoint's request (*T, embedding
// structs.QueryOptions).
type readRequest[T any] interface {
	*T
	SetQueryOptions(structs.QueryOptions)
}

// readReply is a read endpoint's reply (embedding structs.QueryMeta).
type readReply interface{ ReadMeta() structs.QueryMeta }

// readEndpoint answers a GET from a server read endpoint: req, holding
// the keys of the path, gets the URL's query options, and the reply's
// metadata becomes the index headers.
func readEndpoint[T any, Req readRequest[T], Resp readReply](w http.ResponseWriter, r *http.Request,
	endpoint func(context.Context, Req) (Resp, error), req Req) (Resp, error) {
	var none Resp
	q, err := parseQuery(r)
	if err != nil {
		return none, err
	}
	req.SetQueryOptions(q)
	reply, err := endpoint(r.Context(), req)
	if err != nil {
		return none, err
	}
	setMeta(w, reply.ReadMeta())
	return reply, nil
}

// listOf converts a listing for the API: never nil, so an empty one is
// JSON's [] (what Nomad answers), not null.
func listOf[A, B any](in []*A, convert func(*A) *B) []*B {
	out := make([]*B, 0, len(in))
	for _, v := range in {
		out = append(out, convert(v))
	}
	return out
}

// oneOf answers a read of one object: converted for the API, or a 404
// with notFound's message when the read found none.
func oneOf[A, B any](obj *A, convert func(*A) *B, notFound string, args ...any) (any, error) {
	if obj == nil {
		return nil, server.NotFound(notFound, args...)
	}
	return convert(obj), nil
}
