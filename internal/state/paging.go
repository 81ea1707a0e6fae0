package state

import (
	"fmt"
	"strings"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// Paged listings: one page of a table costs what the page costs, not what
// the table holds. Each starts a memdb iterator at the page's first key
// (LowerBound, or ReverseLowerBound in reverse), walks the "id" index in
// key order and stops after PerPage items that match, plus one to learn
// the next page's token. Items before the page, outside the prefix or
// rejected by Match are skipped as they are met.

// PageOptions select one page of a listing.
type PageOptions struct {
	// Namespace limits the listing to one namespace; "*" (AllNamespaces)
	// lists every namespace. Nodes have none and ignore it.
	Namespace string
	// Prefix keeps the items whose ID starts with it.
	Prefix string
	// NextToken is the key of the page's first item ("" starts at the
	// first key, or the last in reverse).
	NextToken string
	Reverse   bool
	// PerPage bounds the page; 0 lists everything.
	PerPage int
}

// PageResult is one page and the key of the next page's first item, ""
// on the last page.
type PageResult[T any] struct {
	Items     []*T
	NextToken string
}

// MatchFunc decides whether an item belongs in the page (nil keeps all);
// an error (a filter that cannot be evaluated) ends the listing.
type MatchFunc[T any] func(*T) (bool, error)

// EvalsPage lists one page of evaluations, keyed by ID.
func (r reader) EvalsPage(ws memdb.WatchSet, opts PageOptions, match MatchFunc[structs.Evaluation]) (PageResult[structs.Evaluation], error) {
	return idPage(r.txn(), ws, TableEvals, opts, evalNamespace, func(e *structs.Evaluation) string { return e.ID }, match)
}

// AllocsPage lists one page of allocations, keyed by ID.
func (r reader) AllocsPage(ws memdb.WatchSet, opts PageOptions, match MatchFunc[structs.Allocation]) (PageResult[structs.Allocation], error) {
	return idPage(r.txn(), ws, TableAllocs, opts, allocNamespace, func(a *structs.Allocation) string { return a.ID }, match)
}

// DeploymentsPage lists one page of deployments, keyed by ID.
func (r reader) DeploymentsPage(ws memdb.WatchSet, opts PageOptions, match MatchFunc[structs.Deployment]) (PageResult[structs.Deployment], error) {
	return idPage(r.txn(), ws, TableDeployment, opts, func(d *structs.Deployment) string { return d.Namespace },
		func(d *structs.Deployment) string { return d.ID }, match)
}

// NodesPage lists one page of nodes, keyed by ID (nodes have no
// namespace).
func (r reader) NodesPage(ws memdb.WatchSet, opts PageOptions, match MatchFunc[structs.Node]) (PageResult[structs.Node], error) {
	opts.Namespace = AllNamespaces
	return idPage(r.txn(), ws, TableNodes, opts, nil, func(n *structs.Node) string { return n.ID }, match)
}

// JobsPage lists one page of jobs. Jobs are unique per namespace, so their
// key is "namespace.id" (namespaces cannot contain a dot) and the order is
// namespace, then ID.
func (r reader) JobsPage(ws memdb.WatchSet, opts PageOptions, match MatchFunc[structs.Job]) (PageResult[structs.Job], error) {
	txn := r.txn()
	watchTable(txn, ws, TableJobs)
	startNS, startID, err := jobsStart(opts)
	if err != nil {
		return PageResult[structs.Job]{}, err
	}
	var it memdb.ResultIterator
	if opts.Reverse {
		it, err = txn.ReverseLowerBound(TableJobs, "id", startNS, startID)
	} else {
		it, err = txn.LowerBound(TableJobs, "id", startNS, startID)
	}
	if err != nil {
		return PageResult[structs.Job]{}, fmt.Errorf("%s lookup failed: %w", TableJobs, err)
	}
	inRange := func(j *structs.Job) rangeCheck {
		if opts.Namespace == AllNamespaces {
			// IDs restart in every namespace: no ID ends the range.
			if strings.HasPrefix(j.ID, opts.Prefix) {
				return inside
			}
			return skip
		}
		if j.Namespace != opts.Namespace {
			if (j.Namespace > opts.Namespace) != opts.Reverse {
				return pastRange
			}
			return skip
		}
		return prefixRange(j.ID, opts.Prefix, opts.Reverse)
	}
	return collect(it, opts.PerPage, inRange, func(j *structs.Job) string { return j.Namespace + "." + j.ID }, match)
}

// jobsStart is the (namespace, id) key the jobs iterator starts from.
func jobsStart(opts PageOptions) (string, string, error) {
	ns, id := opts.Namespace, opts.Prefix
	if opts.NextToken != "" {
		var ok bool
		ns, id, ok = strings.Cut(opts.NextToken, ".")
		if !ok {
			return "", "", fmt.Errorf("next_token %q is not a job key (namespace.id)", opts.NextToken)
		}
	}
	if ns == AllNamespaces {
		ns = ""
		if opts.Reverse {
			ns = maxKey
		}
	}
	if opts.Reverse && opts.NextToken == "" {
		id += maxKey
	}
	return ns, id, nil
}

// maxKey sorts after every ID that is valid UTF-8 (0xff never occurs in
// UTF-8), so prefix+maxKey bounds the IDs starting with prefix from above.
const maxKey = "\xff"

// idPage lists one page of a table whose "id" index is the object's ID.
func idPage[T any](txn *memdb.Txn, ws memdb.WatchSet, table string, opts PageOptions,
	nsOf func(*T) string, key func(*T) string, match MatchFunc[T]) (PageResult[T], error) {
	watchTable(txn, ws, table)
	var it memdb.ResultIterator
	var err error
	switch start := max(opts.NextToken, opts.Prefix); {
	case opts.Reverse && opts.NextToken != "":
		it, err = txn.ReverseLowerBound(table, "id", opts.NextToken)
	case opts.Reverse:
		it, err = txn.ReverseLowerBound(table, "id", opts.Prefix+maxKey)
	default:
		it, err = txn.LowerBound(table, "id", start)
	}
	if err != nil {
		return PageResult[T]{}, fmt.Errorf("%s lookup failed: %w", table, err)
	}
	inRange := func(obj *T) rangeCheck {
		check := prefixRange(key(obj), opts.Prefix, opts.Reverse)
		if check == inside && nsOf != nil && opts.Namespace != AllNamespaces && nsOf(obj) != opts.Namespace {
			return skip
		}
		return check
	}
	return collect(it, opts.PerPage, inRange, key, match)
}

// rangeCheck says where an item lies relative to the listed range.
type rangeCheck int

const (
	inside    rangeCheck = iota
	skip                 // not listed, but later items may be
	pastRange            // this and every later item are outside the range
)

// prefixRange places an ID relative to the IDs starting with prefix, in
// iteration order.
func prefixRange(id, prefix string, reverse bool) rangeCheck {
	switch {
	case strings.HasPrefix(id, prefix):
		return inside
	case (id > prefix) != reverse:
		return pastRange
	}
	return skip
}

// collect walks it until the page holds perPage matching items and one
// more proves a next page exists (its key is the next token).
func collect[T any](it memdb.ResultIterator, perPage int, inRange func(*T) rangeCheck, key func(*T) string, match MatchFunc[T]) (PageResult[T], error) {
	var page PageResult[T]
	for raw := it.Next(); raw != nil; raw = it.Next() {
		obj := raw.(*T)
		switch inRange(obj) {
		case pastRange:
			return page, nil
		case skip:
			continue
		}
		if match != nil {
			ok, err := match(obj)
			if err != nil {
				return PageResult[T]{}, err
			}
			if !ok {
				continue
			}
		}
		if perPage > 0 && len(page.Items) == perPage {
			page.NextToken = key(obj)
			return page, nil
		}
		page.Items = append(page.Items, obj)
	}
	return page, nil
}

// watchTable adds the table's index entry to ws: it changes whenever the
// table does. Bound iterators carry no watch channel of their own.
func watchTable(txn *memdb.Txn, ws memdb.WatchSet, table string) {
	if ws == nil {
		return
	}
	ch, _, err := txn.FirstWatch(TableIndex, "id", table)
	if err == nil {
		ws.Add(ch)
	}
}
