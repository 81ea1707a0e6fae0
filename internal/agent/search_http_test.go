package agent

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api/contexts"
)

func TestSearch_PrefixAcrossContexts(t *testing.T) {
	_, c := runningJob(t) // job "web" with 2 allocs on nodes sim-1, sim-2
	allocs, _, err := c.Jobs().Allocations("web", false, nil)
	if err != nil || len(allocs) == 0 {
		t.Fatalf("allocs: %v %v", allocs, err)
	}
	res, _, err := c.Search().PrefixSearch("we", contexts.Jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Matches[contexts.Jobs]; len(got) != 1 || got[0] != "web" {
		t.Fatalf("jobs matching 'we': %v", got)
	}
	// "all" covers every context; an alloc's ID prefix finds it.
	prefix := allocs[0].ID[:6]
	res, _, err = c.Search().PrefixSearch(prefix, contexts.All, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, id := range res.Matches[contexts.Allocs] {
		found = found || id == allocs[0].ID
	}
	if !found {
		t.Fatalf("alloc %s not found by prefix %s: %v", allocs[0].ID, prefix, res.Matches)
	}
	for _, ctx := range []contexts.Context{contexts.Jobs, contexts.Evals, contexts.Nodes, contexts.Deployments, contexts.NodePools} {
		if _, ok := res.Matches[ctx]; !ok {
			t.Errorf("context %s missing from an 'all' search", ctx)
		}
	}
}

func TestSearch_PrefixTruncatesAt20(t *testing.T) {
	_, c := testAgent(t, nil)
	for i := 0; i < 21; i++ {
		job := testAPIJob("batch-" + string(rune('a'+i)))
		if _, _, err := c.Jobs().Register(job, nil); err != nil {
			t.Fatal(err)
		}
	}
	res, _, err := c.Search().PrefixSearch("batch-", contexts.Jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches[contexts.Jobs]) != 20 || !res.Truncations[contexts.Jobs] {
		t.Fatalf("want 20 matches and a truncation, got %d, %v", len(res.Matches[contexts.Jobs]), res.Truncations)
	}
}

func TestSearch_FuzzyNamesWithScopes(t *testing.T) {
	_, c := testAgent(t, nil)
	if _, _, err := c.Jobs().Register(testAPIJob("my-nginx-site"), nil); err != nil {
		t.Fatal(err)
	}
	res, _, err := c.Search().FuzzySearch("NGINX", contexts.All, nil)
	if err != nil {
		t.Fatal(err)
	}
	jobs := res.Matches[contexts.Jobs]
	if len(jobs) != 1 || jobs[0].ID != "my-nginx-site" || jobs[0].Scope[0] != "default" {
		t.Fatalf("jobs: %+v", jobs)
	}
	images := res.Matches[contexts.Images]
	want := []string{"default", "my-nginx-site", "web", "server"}
	if len(images) != 1 || images[0].ID != "nginx:1.25" || strings.Join(images[0].Scope, "/") != strings.Join(want, "/") {
		t.Fatalf("images: %+v", images)
	}
	res, _, err = c.Search().FuzzySearch("serv", contexts.Tasks, nil)
	if err != nil || len(res.Matches[contexts.Tasks]) != 1 {
		t.Fatalf("tasks: %+v %v", res, err)
	}
}

func TestSearch_BadInput(t *testing.T) {
	_, c := testAgent(t, nil)
	if _, _, err := c.Search().FuzzySearch("x", contexts.All, nil); err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "Text") {
		t.Fatalf("one-letter fuzzy term: %v", err)
	}
	if _, _, err := c.Search().PrefixSearch("a", contexts.Context("bogus"), nil); err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "Context") {
		t.Fatalf("unknown context: %v", err)
	}
}
