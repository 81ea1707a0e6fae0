package state

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// pager lists one page of some table and names its items by key.
type pager func(opts PageOptions) ([]string, string, error)

// walk lists every page from opts on, checking that each page but the
// last is full and that the pages join up.
func walk(t *testing.T, list pager, opts PageOptions) []string {
	t.Helper()
	var all []string
	for range 100 {
		keys, next, err := list(opts)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, keys...)
		if next == "" {
			return all
		}
		if opts.PerPage > 0 && len(keys) != opts.PerPage {
			t.Fatalf("page %v has a next token %q but only %d of %d items", keys, next, len(keys), opts.PerPage)
		}
		opts.NextToken = next
	}
	t.Fatal("pages never end")
	return nil
}

func evalsFixture(t *testing.T) *StateStore {
	s := newStore(t)
	var evals []*structs.Evaluation
	for _, id := range []string{"a1", "a2", "a3", "b1", "b2", "c1"} {
		evals = append(evals, mockEval(id, "job-"+id[:1]))
	}
	evals[4].Namespace = "other" // b2
	must(t, s.UpsertEvals(10, evals))
	return s
}

func evalPager(s *StateStore, match MatchFunc[structs.Evaluation]) pager {
	return func(opts PageOptions) ([]string, string, error) {
		page, err := s.EvalsPage(nil, opts, match)
		var ids []string
		for _, e := range page.Items {
			ids = append(ids, e.ID)
		}
		return ids, page.NextToken, err
	}
}

func TestEvalsPage(t *testing.T) {
	s := evalsFixture(t)
	notC := func(e *structs.Evaluation) (bool, error) { return e.JobID != "job-c", nil }
	for _, tc := range []struct {
		name  string
		opts  PageOptions
		match MatchFunc[structs.Evaluation]
		want  []string
	}{
		{"one namespace", PageOptions{Namespace: "default", PerPage: 2}, nil, []string{"a1", "a2", "a3", "b1", "c1"}},
		{"every namespace", PageOptions{Namespace: "*", PerPage: 2}, nil, []string{"a1", "a2", "a3", "b1", "b2", "c1"}},
		{"no limit", PageOptions{Namespace: "*"}, nil, []string{"a1", "a2", "a3", "b1", "b2", "c1"}},
		{"reverse", PageOptions{Namespace: "*", PerPage: 4, Reverse: true}, nil, []string{"c1", "b2", "b1", "a3", "a2", "a1"}},
		{"prefix", PageOptions{Namespace: "*", Prefix: "b", PerPage: 1}, nil, []string{"b1", "b2"}},
		{"prefix reverse", PageOptions{Namespace: "*", Prefix: "a", PerPage: 2, Reverse: true}, nil, []string{"a3", "a2", "a1"}},
		{"prefix of another namespace", PageOptions{Namespace: "other", Prefix: "b", PerPage: 1}, nil, []string{"b2"}},
		{"prefix matching nothing", PageOptions{Namespace: "*", Prefix: "zz"}, nil, nil},
		{"from a token", PageOptions{Namespace: "*", NextToken: "b1", PerPage: 10}, nil, []string{"b1", "b2", "c1"}},
		{"from a token in reverse", PageOptions{Namespace: "*", NextToken: "b1", Reverse: true}, nil, []string{"b1", "a3", "a2", "a1"}},
		{"filtered", PageOptions{Namespace: "*", PerPage: 2}, notC, []string{"a1", "a2", "a3", "b1", "b2"}},
		{"filtered reverse", PageOptions{Namespace: "*", PerPage: 2, Reverse: true}, notC, []string{"b2", "b1", "a3", "a2", "a1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := walk(t, evalPager(s, tc.match), tc.opts); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// A page reads the page and one more matching item, whatever the table
// holds: paging costs what the page costs.
func TestEvalsPage_ReadsOnlyThePage(t *testing.T) {
	s := newStore(t)
	var evals []*structs.Evaluation
	for i := range 5000 {
		evals = append(evals, mockEval(fmt.Sprintf("e%05d", i), "web"))
	}
	must(t, s.UpsertEvals(10, evals))
	for _, opts := range []PageOptions{
		{Namespace: "default", PerPage: 20},
		{Namespace: "default", PerPage: 20, NextToken: "e02500"},
		{Namespace: "default", PerPage: 20, NextToken: "e02500", Reverse: true},
		{Namespace: "*", PerPage: 20, Prefix: "e04"},
	} {
		seen := 0
		page, err := s.EvalsPage(nil, opts, func(*structs.Evaluation) (bool, error) { seen++; return true, nil })
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 20 || page.NextToken == "" || seen != 21 {
			t.Fatalf("%+v: %d items, next %q, %d examined; want 20, a token, 21", opts, len(page.Items), page.NextToken, seen)
		}
	}
}

func TestEvalsPage_FilterErrorEndsTheListing(t *testing.T) {
	s := evalsFixture(t)
	bad := errors.New("filter: no such field")
	if _, err := s.EvalsPage(nil, PageOptions{Namespace: "*"}, func(*structs.Evaluation) (bool, error) { return false, bad }); !errors.Is(err, bad) {
		t.Fatalf("got %v, want the filter's error", err)
	}
}

// A blocking list wakes when the table changes, though bound iterators
// have no watch channel of their own.
func TestEvalsPage_WatchFiresOnChange(t *testing.T) {
	s := evalsFixture(t)
	ws := memdb.NewWatchSet()
	if _, err := s.EvalsPage(ws, PageOptions{Namespace: "*", PerPage: 1}, nil); err != nil {
		t.Fatal(err)
	}
	if watchFired(ws) {
		t.Fatal("watch fired before any change")
	}
	must(t, s.UpsertEvals(11, []*structs.Evaluation{mockEval("z9", "web")}))
	if !watchFired(ws) {
		t.Fatal("watch did not fire on a new eval")
	}
}

func TestJobsPage(t *testing.T) {
	s := newStore(t)
	for i, key := range [][2]string{{"default", "api"}, {"default", "web"}, {"default", "web-2"}, {"batch", "web"}, {"batch", "etl"}} {
		j := mockJob(key[1])
		j.Namespace = key[0]
		must(t, s.UpsertJob(uint64(10+i), 0, j))
	}
	list := func(opts PageOptions) ([]string, string, error) {
		page, err := s.JobsPage(nil, opts, nil)
		var keys []string
		for _, j := range page.Items {
			keys = append(keys, j.Namespace+"."+j.ID)
		}
		return keys, page.NextToken, err
	}
	for _, tc := range []struct {
		name string
		opts PageOptions
		want []string
	}{
		{"one namespace", PageOptions{Namespace: "default", PerPage: 2}, []string{"default.api", "default.web", "default.web-2"}},
		{"one namespace reverse", PageOptions{Namespace: "default", PerPage: 2, Reverse: true}, []string{"default.web-2", "default.web", "default.api"}},
		{"every namespace", PageOptions{Namespace: "*", PerPage: 2}, []string{"batch.etl", "batch.web", "default.api", "default.web", "default.web-2"}},
		{"every namespace reverse", PageOptions{Namespace: "*", PerPage: 3, Reverse: true}, []string{"default.web-2", "default.web", "default.api", "batch.web", "batch.etl"}},
		{"prefix in a namespace", PageOptions{Namespace: "default", Prefix: "web", PerPage: 1}, []string{"default.web", "default.web-2"}},
		{"prefix in every namespace", PageOptions{Namespace: "*", Prefix: "web", PerPage: 1}, []string{"batch.web", "default.web", "default.web-2"}},
		{"prefix reverse", PageOptions{Namespace: "default", Prefix: "web", Reverse: true}, []string{"default.web-2", "default.web"}},
		{"from a token", PageOptions{Namespace: "*", NextToken: "default.web"}, []string{"default.web", "default.web-2"}},
		{"other namespace is empty", PageOptions{Namespace: "nope"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := walk(t, list, tc.opts); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	if _, err := s.JobsPage(nil, PageOptions{Namespace: "*", NextToken: "nodot"}, nil); err == nil {
		t.Fatal("a token without a namespace was accepted")
	}
}

func TestAllocsNodesDeploymentsPage(t *testing.T) {
	s := newStore(t)
	job := mockJob("web")
	must(t, s.UpsertJob(9, 0, job))
	ids := []string{"a1", "a2", "b1", "b2", "b3"}
	var allocs []*structs.Allocation
	for i, id := range ids {
		must(t, s.UpsertNode(uint64(10+i), mockNode(id)))
		must(t, s.UpsertDeployment(uint64(20+i), mockDeployment(id, job)))
		allocs = append(allocs, mockAlloc(id, job, id))
	}
	must(t, s.UpsertAllocs(30, allocs))
	keys := func(n int, key func(int) string) []string {
		var out []string
		for i := range n {
			out = append(out, key(i))
		}
		return out
	}
	pagers := map[string]pager{
		"allocs": func(o PageOptions) ([]string, string, error) {
			p, err := s.AllocsPage(nil, o, nil)
			return keys(len(p.Items), func(i int) string { return p.Items[i].ID }), p.NextToken, err
		},
		"nodes": func(o PageOptions) ([]string, string, error) {
			p, err := s.NodesPage(nil, o, nil)
			return keys(len(p.Items), func(i int) string { return p.Items[i].ID }), p.NextToken, err
		},
		"deployments": func(o PageOptions) ([]string, string, error) {
			p, err := s.DeploymentsPage(nil, o, nil)
			return keys(len(p.Items), func(i int) string { return p.Items[i].ID }), p.NextToken, err
		},
	}
	for name, list := range pagers {
		t.Run(name, func(t *testing.T) {
			if got := walk(t, list, PageOptions{Namespace: "default", PerPage: 2}); !slices.Equal(got, ids) {
				t.Fatalf("forward: %v", got)
			}
			if got := walk(t, list, PageOptions{Namespace: "*", Prefix: "b", PerPage: 2, Reverse: true}); !slices.Equal(got, []string{"b3", "b2", "b1"}) {
				t.Fatalf("prefix reverse: %v", got)
			}
		})
	}
	// Nodes have no namespace: a namespace does not hide them.
	if got := walk(t, pagers["nodes"], PageOptions{Namespace: "other"}); len(got) != len(ids) {
		t.Fatalf("nodes in namespace other: %v", got)
	}
	if got := walk(t, pagers["allocs"], PageOptions{Namespace: "other"}); len(got) != 0 {
		t.Fatalf("allocs in namespace other: %v", got)
	}
}
