package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// TestListStubCache_SameJSONAsUncached: the alloc and node listings,
// served from per-object cached JSON, are byte for byte what encoding the
// converted stubs gives, for every reply shape, on a first (cold) and a
// second (cached) request, and after an object changes.
func TestListStubCache_SameJSONAsUncached(t *testing.T) {
	a, c := testAgent(t, allSchedulers)
	for i := 1; i <= 3; i++ {
		if _, err := a.Server().RegisterNode(simNode(i, 4000, 8192)); err != nil {
			t.Fatal(err)
		}
	}
	job := testAPIJob("web")
	job.TaskGroups[0].Tasks[0].Resources = &api.Resources{CPU: pointer(100), MemoryMB: pointer(64)}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	allocs := waitAllocs(t, c, "web", 3)
	srv := a.Server()
	encode := func(v any, pretty bool) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		if pretty {
			enc.SetIndent("", "    ")
		}
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	uncachedAllocs := func(resources, taskStates, pretty bool) string {
		reply, err := server.AllocList.Call(context.Background(), srv, &structs.AllocListRequest{})
		if err != nil {
			t.Fatal(err)
		}
		stubs := []*api.AllocationListStub{}
		for _, al := range reply.Allocations {
			s := apiconv.AllocStubFromStructs(al, resources)
			if !taskStates {
				s.TaskStates = nil
			}
			stubs = append(stubs, s)
		}
		return encode(stubs, pretty)
	}
	uncachedNodes := func(fields apiconv.NodeStubFields, pretty bool) string {
		reply, err := server.NodeList.Call(context.Background(), srv, &structs.NodeListRequest{})
		if err != nil {
			t.Fatal(err)
		}
		stubs := []*api.NodeListStub{}
		for _, n := range reply.Nodes {
			stubs = append(stubs, apiconv.NodeStubFromStructs(n, fields))
		}
		return encode(stubs, pretty)
	}
	get := func(path string) string {
		resp, err := http.Get("http://" + a.HTTPAddr() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	cases := []struct {
		path string
		want func() string
	}{
		{"/v1/allocations", func() string { return uncachedAllocs(false, true, false) }},
		{"/v1/allocations?resources=true", func() string { return uncachedAllocs(true, true, false) }},
		{"/v1/allocations?task_states=false", func() string { return uncachedAllocs(false, false, false) }},
		{"/v1/allocations?resources=true&task_states=false&pretty", func() string { return uncachedAllocs(true, false, true) }},
		{"/v1/nodes", func() string { return uncachedNodes(apiconv.NodeStubFields{}, false) }},
		{"/v1/nodes?resources=true&os=true", func() string { return uncachedNodes(apiconv.NodeStubFields{Resources: true, OS: true}, false) }},
		{"/v1/nodes?pretty", func() string { return uncachedNodes(apiconv.NodeStubFields{}, true) }},
	}
	check := func(round string) {
		for _, tc := range cases {
			if got, want := get(tc.path), tc.want(); got != want {
				t.Errorf("%s GET %s:\n got %s\nwant %s", round, tc.path, got, want)
			}
		}
	}
	check("cold")
	check("cached")
	// An update stores a new alloc object: the listing shows the change.
	if _, err := c.Allocations().Stop(&api.Allocation{ID: allocs[0].ID}, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the stopped alloc in the listing", 10*time.Second, func() (bool, string) {
		body := get("/v1/allocations")
		var stubs []*api.AllocationListStub
		if err := json.Unmarshal([]byte(body), &stubs); err != nil {
			t.Fatal(err)
		}
		for _, s := range stubs {
			if s.ID == allocs[0].ID {
				return s.DesiredStatus == "stop", s.DesiredStatus
			}
		}
		return false, "gone"
	})
	check("after a change")
	if s := a.httpHandler.stubs.allocs.Stats(); s.Hits == 0 {
		t.Fatalf("alloc stub cache never hit: %+v", s)
	}
}

// TestJobListSummary_FollowsAllocChanges: job listings memoize each job's
// summary while its allocs and evals are unchanged; a client's update of
// one alloc must show in the next listing (and wake a blocking one).
func TestJobListSummary_FollowsAllocChanges(t *testing.T) {
	a, c := runningJob(t)
	summary := func(q *api.QueryOptions) (api.TaskGroupSummary, uint64) {
		jobs, meta, err := c.Jobs().List(q)
		if err != nil || len(jobs) != 1 {
			t.Fatalf("jobs %d: %v", len(jobs), err)
		}
		return jobs[0].JobSummary.Summary["web"], meta.LastIndex
	}
	before, index := summary(nil)
	if again, _ := summary(nil); before.Starting != 2 || again != before {
		t.Fatalf("summary %+v then %+v, want 2 starting twice", before, again)
	}
	srv := a.Server()
	allocs, err := srv.State().AllocsByJob(nil, "default", "web", false)
	if err != nil || len(allocs) != 2 {
		t.Fatalf("allocs %d: %v", len(allocs), err)
	}
	node, err := srv.State().NodeByID(nil, allocs[0].NodeID)
	if err != nil {
		t.Fatal(err)
	}
	running := allocs[0].Copy()
	running.ClientStatus = structs.AllocClientStatusRunning
	done := make(chan api.TaskGroupSummary, 1)
	go func() {
		g, _ := summary(&api.QueryOptions{WaitIndex: index, WaitTime: 10 * time.Second})
		done <- g
	}()
	if _, err := server.NodeUpdateAlloc.Call(context.Background(), srv, &structs.AllocClientUpdateArgs{
		NodeID: node.ID, SecretID: node.SecretID, Allocs: []*structs.Allocation{running}}); err != nil {
		t.Fatal(err)
	}
	if g := <-done; g.Running != 1 || g.Starting != 1 {
		t.Fatalf("the blocking listing woke with %+v, want 1 running and 1 starting", g)
	}
	if g, _ := summary(nil); g.Running != 1 || g.Starting != 1 {
		t.Fatalf("listing after the update: %+v, want 1 running and 1 starting", g)
	}
}

// TestJSONList_SizeIsTheReplyLength: size (a cached reply's
// Content-Length) is the length of what writeChunks and bytes write.
func TestJSONList_SizeIsTheReplyLength(t *testing.T) {
	for _, l := range []jsonList{nil, {[]byte(`1`)}, {[]byte(`{"a":1}`), []byte(`2`), []byte(`"x"`)}} {
		var b bytes.Buffer
		if err := l.writeChunks(&b); err != nil {
			t.Fatal(err)
		}
		if l.size() != b.Len() || string(l.bytes(false)) != b.String() {
			t.Fatalf("%q: size %d, writeChunks %q, bytes %q", l, l.size(), b.String(), l.bytes(false))
		}
	}
}
