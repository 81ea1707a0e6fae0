package agent

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// listReply is what a GET answered, as the comparison sees it.
type listReply struct {
	status      int
	index, next string
	contentType string
	knownLeader string // X-Nomad-KnownLeader (LastContact is a time: left out)
	body        string
	// gzipped: the reply came gzip'd and Go's client unzipped it.
	gzipped bool
}

func getList(t *testing.T, a *Agent, path, token string) listReply {
	t.Helper()
	return getListEncoded(t, a, path, token, "")
}

// getListEncoded is getList asking for encoding: "" is Go's client
// default (gzip, decompressed here), "identity" a plain body.
func getListEncoded(t *testing.T, a *Agent, path, token, encoding string) listReply {
	t.Helper()
	resp, b := fetch(t, a, path, token, encoding)
	return listReply{status: resp.StatusCode, index: resp.Header.Get("X-Nomad-Index"),
		next: resp.Header.Get("X-Nomad-NextToken"), contentType: resp.Header.Get("Content-Type"),
		knownLeader: resp.Header.Get("X-Nomad-KnownLeader"), body: string(b), gzipped: resp.Uncompressed}
}

// fetch GETs path with token (if any), asking for encoding (if any:
// then Go's client leaves the body as it came over the wire), and
// returns the reply with its whole body.
func fetch(t *testing.T, a *Agent, path, token, encoding string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", "http://"+a.HTTPAddr()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("X-Nomad-Token", token)
	}
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// aclListAgent is an agent with ACLs on, bootstrapped (c carries the
// management token, root), and seeded by seedListCluster.
func aclListAgent(t *testing.T) (a *Agent, c *api.Client, root *api.ACLToken, ids map[string]string) {
	t.Helper()
	a, c = testAgent(t, func(cfg *config.Config) {
		allSchedulers(cfg)
		cfg.ACL.Enabled = true
	})
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSecretID(root.SecretID)
	return a, c, root, seedListCluster(t, a, c)
}

// listPaths are every list endpoint of routes.go, in the shapes a caller
// may ask for: pretty, filtered, by prefix, by namespace, paged. ids fill
// the paths' objects.
func listPaths(ids map[string]string) []string {
	filter := func(path, expr string) string {
		return path + "?filter=" + url.QueryEscape(expr)
	}
	paths := []string{
		"/v1/jobs", "/v1/jobs?pretty", "/v1/jobs?namespace=*", "/v1/jobs?namespace=prod", "/v1/jobs?prefix=we",
		"/v1/jobs?per_page=1", "/v1/jobs?namespace=*&per_page=1&next_token=prod.api", "/v1/jobs?index=1",
		filter("/v1/jobs", `Name == "web"`),
		"/v1/allocations", "/v1/allocations?pretty", "/v1/allocations?resources=true", "/v1/allocations?task_states=false",
		"/v1/allocations?resources=true&task_states=false&pretty", "/v1/allocations?namespace=*", "/v1/allocations?namespace=prod",
		"/v1/allocations?per_page=1", "/v1/allocations?prefix=" + ids["alloc"][:4], "/v1/allocations?index=1&wait=1s",
		filter("/v1/allocations?namespace=*", `JobID == "api"`),
		// Bad query options are refused whatever is cached.
		"/v1/allocations?wait=bogus", "/v1/allocations?index=x", "/v1/allocations?stale=maybe", "/v1/allocations?per_page=-1",
		"/v1/jobs?wait=bogus", "/v1/nodes?wait=1fortnight",
		"/v1/nodes", "/v1/nodes?pretty", "/v1/nodes?resources=true&os=true", "/v1/nodes?per_page=1", "/v1/nodes?prefix=" + ids["node"][:4],
		filter("/v1/nodes", `Name != "nope"`),
		"/v1/evaluations", "/v1/evaluations?namespace=*&pretty", "/v1/deployments", "/v1/deployments?namespace=*",
		"/v1/job/web/allocations", "/v1/job/web/evaluations", "/v1/job/web/deployments",
		"/v1/job/api/allocations?namespace=prod", "/v1/job/web/versions", "/v1/job/web/services",
		"/v1/node/" + ids["node"] + "/allocations", "/v1/deployment/allocations/" + ids["deployment"],
		"/v1/evaluation/" + ids["eval"] + "/allocations",
		"/v1/namespaces", "/v1/namespaces?pretty", "/v1/node/pools", "/v1/node/pool/default/jobs", "/v1/node/pool/default/nodes",
		"/v1/vars", "/v1/vars?namespace=*", "/v1/services", "/v1/services?namespace=*",
		"/v1/acl/policies", "/v1/acl/tokens", "/v1/acl/roles", "/v1/acl/auth-methods", "/v1/acl/binding-rules",
		"/v1/regions",
	}
	return paths
}

// seedListCluster gives every listing something: nodes, a job in default
// and one in prod (with allocs, evals, deployments), a variable.
func seedListCluster(t *testing.T, a *Agent, c *api.Client) map[string]string {
	t.Helper()
	for i := 1; i <= 3; i++ {
		if _, err := a.Server().RegisterNode(simNode(i, 4000, 8192)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Namespaces().Register(&api.Namespace{Name: "prod"}, nil); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, ns := range []string{"default", "prod"} {
		id := map[string]string{"default": "web", "prod": "api"}[ns]
		job := testAPIJob(id)
		job.Namespace = pointer(ns)
		job.TaskGroups[0].Count = pointer(2)
		job.TaskGroups[0].Tasks[0].Resources = &api.Resources{CPU: pointer(100), MemoryMB: pointer(64)}
		resp, _, err := c.Jobs().Register(job, &api.WriteOptions{Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		waitEvalDone(t, c, resp.EvalID)
		if ns == "default" {
			ids["eval"] = resp.EvalID
		}
	}
	allocs := waitAllocs(t, c, "web", 2)
	ids["alloc"], ids["node"] = allocs[0].ID, allocs[0].NodeID
	deps, _, err := c.Jobs().Deployments("web", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids["deployment"] = "none"
	if len(deps) > 0 {
		ids["deployment"] = deps[0].ID
	}
	if _, _, err := c.Variables().Create(&api.Variable{Path: "app/db", Items: api.VariableItems{"user": "u"}}, nil); err != nil {
		t.Fatal(err)
	}
	return ids
}

// checkListReplies compares every path's reply from the whole-reply
// cache with the uncached one, for each token in turn (an earlier
// token's cached reply must never answer a later one), cold (emptied
// cache) then warm; with stale, first with the cache as the last round
// left it (replies kept before a change). A mismatch at different
// indexes is the cluster moving between the two reads: it is read again.
func checkListReplies(t *testing.T, a *Agent, round string, stale bool, paths, tokens []string) {
	t.Helper()
	h := a.httpHandler
	passes := []string{"cold", "warm"}
	if stale {
		passes = append([]string{"stale"}, passes...)
	}
	for _, pass := range passes {
		if pass == "cold" {
			h.replies.reset()
		}
		for _, path := range paths {
			for ti, token := range tokens {
				for _, enc := range []string{"", "identity"} {
					var want, got listReply
					for try := 0; try < 5; try++ {
						// Cached first: in the stale pass, what the cache
						// kept before the change is what it would answer.
						got = getListEncoded(t, a, path, token, enc)
						h.replies.off.Store(true)
						want = getListEncoded(t, a, path, token, enc)
						h.replies.off.Store(false)
						if want.index == got.index {
							break
						}
					}
					if got != want {
						t.Errorf("%s, %s, token %d, encoding %q: GET %s\n got %d index %s next %q type %q gzip'd %v: %s\nwant %d index %s next %q type %q gzip'd %v: %s",
							round, pass, ti, enc, path, got.status, got.index, got.next, got.contentType, got.gzipped, got.body,
							want.status, want.index, want.next, want.contentType, want.gzipped, want.body)
					}
				}
			}
		}
	}
}

// TestListReplyCache_SameRepliesAsUncached: every list endpoint answers
// the same status, index, next token, and body bytes from the whole-reply
// cache as without it, cold, warm, after a change, in every shape.
func TestListReplyCache_SameRepliesAsUncached(t *testing.T) {
	a, c := testAgent(t, allSchedulers)
	// Every kept reply in a memory file, sent with sendfile (the ACL
	// test keeps them on the heap).
	a.httpHandler.replies.fileMin.Store(1)
	ids := seedListCluster(t, a, c)
	paths := listPaths(ids)
	checkListReplies(t, a, "first", false, paths, []string{""})
	if s := a.httpHandler.replies.stats(); s.Hits == 0 || s.Entries == 0 {
		t.Fatalf("the reply cache was never used: %+v", s)
	}
	// Changes: an alloc stops (allocs, jobs' summaries), a job is added.
	if _, err := c.Allocations().Stop(&api.Allocation{ID: ids["alloc"]}, nil); err != nil {
		t.Fatal(err)
	}
	resp, _, err := c.Jobs().Register(testAPIJob("web2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitEvalDone(t, c, resp.EvalID)
	checkListReplies(t, a, "after a change", true, paths, []string{""})
}

// TestListReplyCache_ACLViews: with ACLs on, a management token's cached
// listing never answers a token limited to one namespace, nor one
// without a token: each sees what it sees uncached.
func TestListReplyCache_ACLViews(t *testing.T) {
	a, c, root, ids := aclListAgent(t)
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "read-prod",
		Rules: `namespace "prod" { policy = "read" }` + "\n" + `node { policy = "read" }`}, nil); err != nil {
		t.Fatal(err)
	}
	prod, _, err := c.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{"read-prod"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tokens := []string{root.SecretID, prod.SecretID, ""}
	paths := listPaths(ids)
	checkListReplies(t, a, "first", false, paths, tokens)
	// The limited token's listing of every namespace shows prod's only.
	r := getList(t, a, "/v1/allocations?namespace=*", prod.SecretID)
	if r.status != 200 || strings.Contains(r.body, `"JobID":"web"`) || !strings.Contains(r.body, `"JobID":"api"`) {
		t.Fatalf("prod token's alloc listing: %d %s", r.status, r.body)
	}
	if _, err := c.Allocations().Stop(&api.Allocation{ID: ids["alloc"]}, nil); err != nil {
		t.Fatal(err)
	}
	checkListReplies(t, a, "after a change", true, paths, tokens)
}

// TestListReplyCache_BlockingWakesOnFirstChange: a blocking listing at
// the current index waits, through the cache, and wakes on the first
// change of its tables with the new listing; one at an older index is
// answered at once from the cache.
func TestListReplyCache_BlockingWakesOnFirstChange(t *testing.T) {
	a, _ := runningJob(t)
	for _, path := range []string{"/v1/allocations", "/v1/jobs", "/v1/nodes"} {
		first := getList(t, a, path, "")
		hits := a.httpHandler.replies.stats().Hits
		again := getList(t, a, path, "")
		if first != again {
			t.Fatalf("GET %s twice: %+v then %+v", path, first, again)
		}
		// The tables the handler watches give the endpoint's index: a
		// repeat is a hit.
		if a.httpHandler.replies.stats().Hits != hits+1 {
			t.Fatalf("GET %s again was not answered from the cache", path)
		}
		index, _ := strconv.ParseUint(first.index, 10, 64)
		old := getList(t, a, fmt.Sprintf("%s?index=%d", path, index-1), "")
		if old.body != first.body || old.index != first.index {
			t.Fatalf("GET %s?index=%d: %+v, want the cached %+v", path, index-1, old, first)
		}
		done := make(chan listReply, 1)
		start := time.Now()
		go func() { done <- getList(t, a, fmt.Sprintf("%s?index=%d&wait=20s", path, index), "") }()
		time.Sleep(200 * time.Millisecond)
		select {
		case r := <-done:
			t.Fatalf("GET %s at the current index answered at once: %+v", path, r)
		default:
		}
		changeListTables(t, a, path)
		r := <-done
		if time.Since(start) > 15*time.Second {
			t.Fatalf("GET %s woke only at its wait's end", path)
		}
		if next, _ := strconv.ParseUint(r.index, 10, 64); next <= index || r.body == first.body {
			t.Fatalf("GET %s woke with index %s (was %d), same body %v", path, r.index, index, r.body == first.body)
		}
		if now := getList(t, a, path, ""); now != r {
			t.Fatalf("GET %s after the wake: %+v, want %+v", path, now, r)
		}
		// A change with nobody waiting: the next listing has it, not
		// the reply kept before.
		changeListTables(t, a, path)
		now := getList(t, a, path, "")
		if next, _ := strconv.ParseUint(now.index, 10, 64); next <= parseIndex(r.index) {
			t.Fatalf("GET %s after a second change: index %s, was %s", path, now.index, r.index)
		}
		if path != "/v1/jobs" && now.body == r.body { // a job's summary counts statuses only
			t.Fatalf("GET %s after a second change: the same body", path)
		}
	}
}

func parseIndex(s string) uint64 {
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

// changeListTables changes what path lists.
func changeListTables(t *testing.T, a *Agent, path string) {
	t.Helper()
	srv := a.Server()
	switch path {
	case "/v1/nodes":
		if _, err := srv.RegisterNode(simNode(9, 4000, 8192)); err != nil {
			t.Fatal(err)
		}
	default: // a client's update of an alloc: allocs and job summaries change
		allocs, err := srv.State().AllocsByJob(nil, "default", "web", false)
		if err != nil || len(allocs) == 0 {
			t.Fatalf("allocs %d: %v", len(allocs), err)
		}
		node, err := srv.State().NodeByID(nil, allocs[0].NodeID)
		if err != nil {
			t.Fatal(err)
		}
		// A new description: the alloc changes, its status (and so its
		// job's summary and evals) does not.
		upd := allocs[0].Copy()
		upd.ClientDescription = fmt.Sprintf("change at %d", srv.State().Index("allocs"))
		if _, err := server.NodeUpdateAlloc.Call(context.Background(), srv, &structs.AllocClientUpdateArgs{
			NodeID: node.ID, SecretID: node.SecretID, Allocs: []*structs.Allocation{upd}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReplyCache_BoundedByBytes: the cache never holds more than its
// budget, drops the least recently used reply first, never keeps a reply
// over a quarter of it, and never replaces a reply with an older one.
func TestReplyCache_BoundedByBytes(t *testing.T) {
	c := newReplyCache(4000)
	entry := func(index uint64, n int) *replyEntry {
		return &replyEntry{index: index, body: make([]byte, n), size: int64(n)}
	}
	c.put("a", entry(5, 900))
	c.put("b", entry(5, 900))
	c.put("c", entry(5, 900))
	if c.get("a", 5, false) == nil { // a is now the most recently used
		t.Fatal("a missing")
	}
	c.put("d", entry(5, 900))
	c.put("e", entry(5, 900))
	if s := c.stats(); s.Bytes > 4000 || c.peek("b", 5, false) != nil || c.peek("a", 5, false) == nil || c.peek("e", 5, false) == nil {
		t.Fatalf("after eviction: %+v, b kept %v, a kept %v", s, c.peek("b", 5, false) != nil, c.peek("a", 5, false) != nil)
	}
	c.put("big", entry(5, 1001))
	if c.peek("big", 5, false) != nil {
		t.Fatal("kept a reply over a quarter of the budget")
	}
	c.put("a", entry(4, 10))
	if e := c.peek("a", 5, false); e == nil || len(e.body) != 900 {
		t.Fatal("an older reply replaced a newer one")
	}
	if c.get("a", 6, false) != nil {
		t.Fatal("a reply answered another index")
	}
}

// TestReplyCache_FileClosedAfterLastSend: a reply kept in a memory file
// stays open while a request sends it, even once the cache drops it, and
// is closed when that request is done (a request reopens the file by its
// descriptor number, which a close would free for reuse).
func TestReplyCache_FileClosedAfterLastSend(t *testing.T) {
	f, err := newReplyFile(func(w io.Writer) error { _, err := io.WriteString(w, `["x"]`); return err })
	if err != nil {
		t.Skipf("no memory files here: %v", err)
	}
	c := newReplyCache(1 << 20)
	c.put("k", &replyEntry{index: 7, file: f, size: 5})
	e := c.get("k", 7, false)
	if e == nil {
		t.Fatal("not kept")
	}
	c.reset() // dropped while being sent
	r, err := openReplyFile(e.file)
	if err != nil {
		t.Fatalf("the file was closed under a request: %v", err)
	}
	b, _ := io.ReadAll(r)
	r.Close()
	if string(b) != `["x"]` {
		t.Fatalf("read %q", b)
	}
	c.release(e)
	if e.file != nil {
		t.Fatal("the dropped reply's file is still open after its last send")
	}
	if _, err := f.Stat(); err == nil {
		t.Fatal("the file is open")
	}
}

// TestListReplyCache_FollowerNeverAnswersFromIt: a follower forwards a
// listing to the leader: its own cache stays empty; the leader's serves
// repeats. (A stale listing is answered from the follower's own state,
// and cache: TestListReplyCache_FollowerStaleAsUncached.)
func TestListReplyCache_FollowerNeverAnswersFromIt(t *testing.T) {
	nodes, leader := startThreeServers(t)
	f := follower(nodes, leader)
	if _, err := leader.agent.Server().RegisterNode(simNode(1, 4000, 8192)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the node on the follower", 10*time.Second, func() (bool, string) {
		return f.agent.Server().State().Index("nodes") > 1, "not yet"
	})
	for _, n := range []*clusterNode{leader, f} {
		for _, path := range []string{"/v1/jobs", "/v1/allocations", "/v1/nodes", "/v1/nodes?stale=false"} {
			for range 2 {
				if r := getList(t, n.agent, path, ""); r.status != 200 {
					t.Fatalf("%s GET %s: %d %s", n.name, path, r.status, r.body)
				}
			}
		}
	}
	if s := f.agent.httpHandler.replies.stats(); s.Entries != 0 || s.Hits != 0 || s.Misses != 0 {
		t.Fatalf("the follower's reply cache was used: %+v", s)
	}
	if s := leader.agent.httpHandler.replies.stats(); s.Hits == 0 {
		t.Fatalf("the leader's reply cache never hit: %+v", s)
	}
}
