package server

import (
	"strings"

	"github.com/hashicorp/go-bexpr"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// filterFunc compiles a go-bexpr filter; an empty filter matches everything.
func filterFunc[T any](expr string) (func(T) (bool, error), error) {
	if expr == "" {
		return func(T) (bool, error) { return true, nil }, nil
	}
	ev, err := bexpr.CreateEvaluator(expr)
	if err != nil {
		return nil, BadRequest("filter: invalid expression: %v", err)
	}
	return func(it T) (bool, error) {
		ok, err := ev.Evaluate(it)
		if err != nil {
			return false, BadRequest("filter: %v", err)
		}
		return ok, nil
	}, nil
}

// pageOptions turns a request's list options into the state store's, for
// the paged listings whose cost follows the page (state.EvalsPage, ...).
func pageOptions(q *QueryOptions) state.PageOptions {
	ns := q.Namespace
	if strings.TrimSpace(ns) == state.AllNamespaces {
		ns = state.AllNamespaces
	} else if ns == "" {
		ns = structs.DefaultNamespace
	}
	return state.PageOptions{Namespace: ns, Prefix: q.Prefix, NextToken: q.NextToken, Reverse: q.Reverse, PerPage: int(q.PerPage)}
}

// pageFilter compiles q.Filter together with the endpoint's own
// conditions (nil when there are none) into one match function.
func pageFilter[T any](q *QueryOptions, also func(*T) bool) (state.MatchFunc[T], error) {
	match, err := filterFunc[*T](q.Filter)
	if err != nil {
		return nil, err
	}
	return func(obj *T) (bool, error) {
		if also != nil && !also(obj) {
			return false, nil
		}
		return match(obj)
	}, nil
}
