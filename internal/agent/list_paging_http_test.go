package agent

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// Job lists page across namespaces with the official client: each page
// carries the next page's token, and the pages join up in (namespace, ID)
// order, with the filter applied before the page is cut.
func TestJobList_PagesAcrossNamespaces(t *testing.T) {
	_, c := testAgent(t, nil)
	if _, err := c.Namespaces().Register(&api.Namespace{Name: "prod"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, key := range [][2]string{{"default", "a"}, {"default", "b"}, {"prod", "a"}, {"prod", "c"}, {"default", "skip"}} {
		job := testAPIJob(key[1])
		job.Namespace = pointer(key[0])
		if _, _, err := c.Jobs().Register(job, nil); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	q := &api.QueryOptions{Namespace: "*", PerPage: 2, Filter: `ID != "skip"`}
	for range 10 {
		page, meta, err := c.Jobs().List(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range page {
			got = append(got, j.Namespace+"."+j.ID)
		}
		if meta.NextToken == "" {
			break
		}
		q.NextToken = meta.NextToken
	}
	if want := []string{"default.a", "default.b", "prod.a", "prod.c"}; !slices.Equal(got, want) {
		t.Fatalf("pages joined: %v, want %v", got, want)
	}
	if _, _, err := c.Jobs().List(&api.QueryOptions{NextToken: "no-namespace"}); err == nil {
		t.Fatal("a job token without a namespace was accepted")
	}
}

// Node lists page in reverse with a prefix.
func TestNodeList_PagesInReverse(t *testing.T) {
	a, c := testAgent(t, nil)
	for i := range 5 {
		if _, err := a.Server().RegisterNode(simNode(i, 1000, 1024)); err != nil {
			t.Fatal(err)
		}
	}
	first, meta, err := c.Nodes().List(&api.QueryOptions{PerPage: 2, Reverse: true, Prefix: "11111111"})
	if err != nil || len(first) != 2 || meta.NextToken == "" || first[0].ID != simNode(4, 0, 0).ID {
		t.Fatalf("first page: %v %+v next %q", err, first, meta.NextToken)
	}
	rest, meta, err := c.Nodes().List(&api.QueryOptions{PerPage: 10, Reverse: true, NextToken: meta.NextToken})
	if err != nil || len(rest) != 3 || meta.NextToken != "" || rest[2].ID != simNode(0, 0, 0).ID {
		t.Fatalf("rest: %v %+v next %q", err, rest, meta.NextToken)
	}
}

// A blocking read ends when its caller's context does (an HTTP client
// that went away), not when the wait runs out.
func TestBlockingList_StopsWhenTheCallerGoes(t *testing.T) {
	a, _ := testAgent(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := server.JobList.Call(ctx, a.Server(), &structs.JobListRequest{QueryOptions: structs.QueryOptions{
			Namespace: "default", MinQueryIndex: 1 << 40, MaxQueryTime: 5 * time.Minute,
		}})
		done <- err
	}()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the blocking list kept waiting after its context ended")
	}
}
