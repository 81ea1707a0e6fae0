package agent

import (
	"net/http"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/nomad/api/contexts"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// prefixSearch answers POST /v1/search: IDs by prefix per context.
func (h *HTTPServer) prefixSearch(w http.ResponseWriter, r *http.Request) (any, error) {
	var body api.SearchRequest
	if err := decodeBody(w, r, &body); err != nil {
		return nil, err
	}
	reply, err := readEndpoint(w, r, server.SearchPrefixSearch.On(h.srv), &structs.SearchRequest{
		Prefix: body.Prefix, Context: string(body.Context),
	})
	if err != nil {
		return nil, err
	}
	out := &api.SearchResponse{Matches: map[contexts.Context][]string{}, Truncations: map[contexts.Context]bool{}}
	for c, ids := range reply.Matches {
		out.Matches[contexts.Context(c)] = ids
		out.Truncations[contexts.Context(c)] = reply.Truncations[c]
	}
	return out, nil
}

// fuzzySearch answers POST /v1/search/fuzzy: names containing a term.
func (h *HTTPServer) fuzzySearch(w http.ResponseWriter, r *http.Request) (any, error) {
	var body api.FuzzySearchRequest
	if err := decodeBody(w, r, &body); err != nil {
		return nil, err
	}
	reply, err := readEndpoint(w, r, server.SearchFuzzySearch.On(h.srv), &structs.FuzzySearchRequest{
		Text: body.Text, Context: string(body.Context),
	})
	if err != nil {
		return nil, err
	}
	out := &api.FuzzySearchResponse{Matches: map[contexts.Context][]api.FuzzyMatch{}, Truncations: map[contexts.Context]bool{}}
	for c, matches := range reply.Matches {
		list := make([]api.FuzzyMatch, 0, len(matches))
		for _, m := range matches {
			list = append(list, api.FuzzyMatch{ID: m.ID, Scope: m.Scope})
		}
		out.Matches[contexts.Context(c)] = list
		out.Truncations[contexts.Context(c)] = reply.Truncations[c]
	}
	return out, nil
}
