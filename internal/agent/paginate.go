package agent

import (
	"net/http"
	"sort"

	"github.com/hashicorp/go-bexpr"

	"github.com/drover-project/drover/internal/server"
)

// paginate filters items with the bexpr expression in lo.Filter, orders them
// by key, and returns one page starting at lo.NextToken. The token of the
// next page (the key of its first item) goes in X-Nomad-NextToken.
func paginate[T any](w http.ResponseWriter, items []T, key func(T) string, lo listOptions) ([]T, error) {
	match, err := filterFunc[T](lo.Filter)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(items, func(i, j int) bool {
		if lo.Reverse {
			return key(items[i]) > key(items[j])
		}
		return key(items[i]) < key(items[j])
	})
	page := make([]T, 0, min(len(items), max(lo.PerPage, 1)))
	for _, it := range items {
		if lo.NextToken != "" && beforeToken(key(it), lo.NextToken, lo.Reverse) {
			continue
		}
		ok, err := match(it)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if lo.PerPage > 0 && len(page) == lo.PerPage {
			w.Header().Set("X-Nomad-NextToken", key(it))
			break
		}
		page = append(page, it)
	}
	return page, nil
}

func beforeToken(k, token string, reverse bool) bool {
	if reverse {
		return k > token
	}
	return k < token
}

// filterFunc compiles a go-bexpr filter; an empty filter matches everything.
func filterFunc[T any](expr string) (func(T) (bool, error), error) {
	if expr == "" {
		return func(T) (bool, error) { return true, nil }, nil
	}
	ev, err := bexpr.CreateEvaluator(expr)
	if err != nil {
		return nil, server.BadRequest("filter: invalid expression: %v", err)
	}
	return func(it T) (bool, error) {
		ok, err := ev.Evaluate(it)
		if err != nil {
			return false, server.BadRequest("filter: %v", err)
		}
		return ok, nil
	}, nil
}
