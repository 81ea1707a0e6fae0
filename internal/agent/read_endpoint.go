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

// readReply is a read endpoint's reply (*R, embedding structs.QueryMeta).
type readReply[R any] interface {
	*R
	ReadMeta() structs.QueryMeta
}

// readEndpoint answers a GET from a server read endpoint: req, holding
// the keys of the path, gets the URL's query options, and the reply's
// metadata becomes the index headers. On error the reply is an empty one,
// never nil, so a handler can hand the reply's field and the error to
// listOf or oneOf, which answer the error first.
func readEndpoint[T, R any, Req readRequest[T], Resp readReply[R]](w http.ResponseWriter, r *http.Request,
	endpoint func(context.Context, Req) (Resp, error), req Req) (Resp, error) {
	q, err := parseQuery(r)
	if err != nil {
		return new(R), err
	}
	req.SetQueryOptions(q)
	reply, err := endpoint(r.Context(), req)
	if err != nil {
		return new(R), err
	}
	setMeta(w, reply.ReadMeta())
	return reply, nil
}

// listOf answers a listing read with err, or converted for the API: never
// nil, so an empty one is JSON's [] (what Nomad answers), not null.
func listOf[A, B any](in []*A, convert func(*A) *B, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	out := make([]*B, 0, len(in))
	for _, v := range in {
		out = append(out, convert(v))
	}
	return out, nil
}

// oneOf answers a read of one object with err, or converted for the API,
// or a 404 with notFound's message when the read found none.
func oneOf[A, B any](obj *A, convert func(*A) *B, err error, notFound string, args ...any) (any, error) {
	if err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, server.NotFound(notFound, args...)
	}
	return convert(obj), nil
}
