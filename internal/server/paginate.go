package server

import (
	"sort"

	"github.com/hashicorp/go-bexpr"

	"github.com/drover-project/drover/internal/structs"
)

// Paginate filters items with the go-bexpr expression in q.Filter, orders
// them by key, and returns one page of q.PerPage items (all when 0)
// starting at q.NextToken, with the key of the next page's first item
// ("" on the last page). The filter sees the listed objects' fields, which
// carry Nomad's names.
func Paginate[T any](items []T, key func(T) string, q *structs.QueryOptions) ([]T, string, error) {
	match, err := filterFunc[T](q.Filter)
	if err != nil {
		return nil, "", err
	}
	sort.SliceStable(items, func(i, j int) bool {
		if q.Reverse {
			return key(items[i]) > key(items[j])
		}
		return key(items[i]) < key(items[j])
	})
	perPage := int(q.PerPage)
	page := make([]T, 0, min(len(items), max(perPage, 1)))
	for _, it := range items {
		if q.NextToken != "" && beforeToken(key(it), q.NextToken, q.Reverse) {
			continue
		}
		ok, err := match(it)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			continue
		}
		if perPage > 0 && len(page) == perPage {
			return page, key(it), nil
		}
		page = append(page, it)
	}
	return page, "", nil
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
