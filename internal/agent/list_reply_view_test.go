package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

// viewCluster is an ACL cluster seeded by seedListCluster (jobs web in
// default and api in prod), with a token per policy below.
type viewCluster struct {
	a      *Agent
	c      *api.Client // management
	ids    map[string]string
	tokens map[string]*api.ACLToken // by policy name; "root" is management
}

// viewPolicies: tokens with different namespace rules; prod-a and prod-b
// (different policies, the same rules) see the same, and so do root and
// all (every namespace).
var viewPolicies = map[string]string{
	"prod-a":    `namespace "prod" { policy = "read" }` + "\n" + `node { policy = "read" }`,
	"prod-b":    `namespace "prod" { policy = "read" }` + "\n" + `node { policy = "read" }`,
	"all":       `namespace "*" { policy = "read" }` + "\n" + `node { policy = "read" }`,
	"not-prod":  `namespace "*" { policy = "read" }` + "\n" + `namespace "prod" { policy = "deny" }`,
	"glob-pr":   `namespace "pr*" { policy = "read" }`,
	"list-only": `namespace "default" { capabilities = ["list-jobs"] }`, // no read-job, no node read: 403s
	"named":     `namespace "default" { policy = "read" }` + "\n" + `namespace "prod" { policy = "read" }`,
	// Sees what "all" sees until a namespace tmp appears.
	"not-tmp": `namespace "*" { policy = "read" }` + "\n" + `namespace "tmp" { policy = "deny" }`,
}

func newViewCluster(t *testing.T) *viewCluster {
	t.Helper()
	a, c, root, ids := aclListAgent(t)
	v := &viewCluster{a: a, c: c, tokens: map[string]*api.ACLToken{"root": root}, ids: ids}
	for name, rules := range viewPolicies {
		if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: rules}, nil); err != nil {
			t.Fatal(err)
		}
		tok, _, err := c.ACLTokens().Create(&api.ACLToken{Name: name, Type: "client", Policies: []string{name}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		v.tokens[name] = tok
	}
	// The anonymous caller reads default, and no node.
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "anonymous", Rules: `namespace "default" { policy = "read" }`}, nil); err != nil {
		t.Fatal(err)
	}
	return v
}

// secrets are the tokens' secrets, the anonymous caller's ("") last.
func (v *viewCluster) secrets() []string {
	var out []string
	for _, name := range []string{"root", "prod-a", "prod-b", "all", "not-prod", "glob-pr", "list-only", "named", "not-tmp"} {
		out = append(out, v.tokens[name].SecretID)
	}
	return append(out, "")
}

// cachedListPaths are listPaths' shapes of the three cached listings.
func cachedListPaths(ids map[string]string) []string {
	var out []string
	for _, p := range listPaths(ids) {
		for _, prefix := range []string{"/v1/jobs", "/v1/allocations", "/v1/nodes"} {
			if p == prefix || strings.HasPrefix(p, prefix+"?") {
				out = append(out, p)
			}
		}
	}
	return out
}

// hitsOf counts the cache hits of the GETs.
func hitsOf(t *testing.T, a *Agent, path string, secrets ...string) (hits int64, replies []listReply) {
	t.Helper()
	before := a.httpHandler.replies.stats().Hits
	for _, s := range secrets {
		replies = append(replies, getList(t, a, path, s))
	}
	return a.httpHandler.replies.stats().Hits - before, replies
}

// TestListReplyCache_LimitedViewsAsUncached: with ACLs on, callers with
// every kind of namespace rule (exact, glob, deny, list-jobs only, none
// for nodes, the anonymous policy) are answered from the cache, each the
// same status, index, next token and bytes as uncached, cold, warm and
// after a change; a 403 stays a 403 and is never kept.
func TestListReplyCache_LimitedViewsAsUncached(t *testing.T) {
	v := newViewCluster(t)
	a := v.a
	paths := cachedListPaths(v.ids)
	checkListReplies(t, a, "first", false, paths, v.secrets())

	// Limited callers are answered from the cache, not only management.
	for _, name := range []string{"prod-a", "not-prod", "glob-pr", "named"} {
		s := v.tokens[name].SecretID
		for _, path := range []string{"/v1/allocations?namespace=*", "/v1/jobs?namespace=*"} {
			if hits, r := hitsOf(t, a, path, s, s); hits != 2 || r[0].status != 200 {
				t.Errorf("%s: GET %s twice: %d hits, status %d", name, path, hits, r[0].status)
			}
		}
	}
	if hits, r := hitsOf(t, a, "/v1/allocations", ""); hits != 1 || r[0].status != 200 || !strings.Contains(r[0].body, `"JobID":"web"`) {
		t.Errorf("anonymous alloc listing: %d hits, %d %s", hits, r[0].status, r[0].body)
	}
	// A caller without node read is refused, and its 403 never kept.
	entries := a.httpHandler.replies.stats().Entries
	for _, s := range []string{v.tokens["list-only"].SecretID, v.tokens["glob-pr"].SecretID, "", "no-such-secret"} {
		if hits, r := hitsOf(t, a, "/v1/nodes", s, s); hits != 0 || r[0].status != 403 || r[1].status != 403 {
			t.Errorf("GET /v1/nodes without node read: %d hits, %d then %d", hits, r[0].status, r[1].status)
		}
	}
	if r := getList(t, a, "/v1/allocations?namespace=prod", v.tokens["list-only"].SecretID); r.status != 403 {
		t.Errorf("allocs of prod without read-job: %d", r.status)
	}
	if now := a.httpHandler.replies.stats().Entries; now != entries {
		t.Errorf("refused requests kept %d entries", now-entries)
	}
	// The prod-only token's listing of every namespace shows prod's only.
	r := getList(t, a, "/v1/allocations?namespace=*", v.tokens["prod-a"].SecretID)
	if r.status != 200 || strings.Contains(r.body, `"JobID":"web"`) || !strings.Contains(r.body, `"JobID":"api"`) {
		t.Fatalf("prod token's alloc listing: %d %s", r.status, r.body)
	}

	if _, err := v.c.Allocations().Stop(&api.Allocation{ID: v.ids["alloc"]}, nil); err != nil {
		t.Fatal(err)
	}
	checkListReplies(t, a, "after a change", true, paths, v.secrets())
}

// TestListReplyCache_SameViewSharesEntry: tokens that see the same share
// one entry (a second token's first listing is a hit), whatever their
// policies are called; tokens that see differently never do.
func TestListReplyCache_SameViewSharesEntry(t *testing.T) {
	v := newViewCluster(t)
	a := v.a
	tok := func(name string) string { return v.tokens[name].SecretID }
	for _, tc := range []struct {
		path        string
		first, then string
		share       bool
	}{
		{"/v1/allocations?namespace=*", "prod-a", "prod-b", true},
		{"/v1/jobs?namespace=*", "prod-b", "prod-a", true},
		{"/v1/allocations?namespace=*", "root", "all", true},
		{"/v1/jobs?namespace=*&pretty", "all", "root", true},
		{"/v1/allocations?namespace=prod", "root", "prod-a", true}, // one namespace, allowed: the whole of it
		{"/v1/nodes", "prod-a", "all", true},
		{"/v1/nodes?resources=true", "root", "prod-b", true},
		{"/v1/allocations?namespace=*", "root", "prod-a", false},
		{"/v1/allocations?namespace=*", "prod-a", "glob-pr", false}, // the same namespaces now, not on a new one
		{"/v1/jobs?namespace=*", "named", "root", false},            // every namespace there is, but not those to come
		{"/v1/jobs?namespace=*", "not-prod", "named", false},
	} {
		a.httpHandler.replies.reset()
		hits, r := hitsOf(t, a, tc.path, tok(tc.first), tok(tc.then))
		if want := map[bool]int64{true: 1, false: 0}[tc.share]; hits != want {
			t.Errorf("GET %s by %s then %s: %d hits, want %d", tc.path, tc.first, tc.then, hits, want)
		}
		a.httpHandler.replies.off.Store(true)
		want := getList(t, a, tc.path, tok(tc.then))
		a.httpHandler.replies.off.Store(false)
		if r[1] != want {
			t.Errorf("GET %s by %s after %s:\n got %+v\nwant %+v", tc.path, tc.then, tc.first, r[1], want)
		}
	}
}

// TestListReplyCache_ViewChangesTakeEffect: a policy update, a deleted
// token, a new namespace and a deleted one (whose allocs outlive it)
// change what the cache answers from the next request on, as uncached.
func TestListReplyCache_ViewChangesTakeEffect(t *testing.T) {
	v := newViewCluster(t)
	a, c := v.a, v.c
	paths := []string{"/v1/allocations?namespace=*", "/v1/jobs?namespace=*", "/v1/allocations", "/v1/jobs?namespace=prod",
		"/v1/allocations?namespace=tmp", "/v1/nodes"}
	check := func(round string) {
		t.Helper()
		checkListReplies(t, a, round, true, paths, v.secrets())
	}
	check("first")

	// The prod-a policy now reads default too: prod-a sees web's allocs
	// at once, prod-b (same policy name no more) does not.
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "prod-a",
		Rules: viewPolicies["prod-a"] + "\n" + `namespace "default" { policy = "read" }`}, nil); err != nil {
		t.Fatal(err)
	}
	if r := getList(t, a, "/v1/allocations?namespace=*", v.tokens["prod-a"].SecretID); !strings.Contains(r.body, `"JobID":"web"`) {
		t.Fatalf("after the policy update: %d %s", r.status, r.body)
	}
	check("after a policy update")

	// A deleted token is refused at once, whatever was kept for its view.
	prodB := v.tokens["prod-b"].SecretID
	getList(t, a, "/v1/allocations?namespace=*", prodB)
	if _, err := c.ACLTokens().Delete(v.tokens["prod-b"].AccessorID, nil); err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		if r := getList(t, a, path, prodB); r.status != 403 {
			t.Fatalf("deleted token: GET %s: %d %s", path, r.status, r.body)
		}
	}
	check("after a token deletion")

	// A new namespace with a job: glob and "*" rules see it at once.
	if _, err := c.Namespaces().Register(&api.Namespace{Name: "tmp"}, nil); err != nil {
		t.Fatal(err)
	}
	check("after a new namespace")
	job := testAPIJob("tmpjob")
	job.Namespace = pointer("tmp")
	job.TaskGroups[0].Count = pointer(1)
	job.TaskGroups[0].Tasks[0].Resources = &api.Resources{CPU: pointer(100), MemoryMB: pointer(64)}
	resp, _, err := c.Jobs().Register(job, &api.WriteOptions{Namespace: "tmp"})
	if err != nil {
		t.Fatal(err)
	}
	waitEvalDone(t, c, resp.EvalID)
	if r := getList(t, a, "/v1/allocations?namespace=*", v.tokens["all"].SecretID); !strings.Contains(r.body, `"JobID":"tmpjob"`) {
		t.Fatalf("the new namespace's alloc is not listed: %s", r.body)
	}
	check("after a job in the new namespace")

	// Purged, its namespace deleted: its allocs stay (until collected),
	// in a namespace the state no longer has. "named" reads every
	// namespace there is, by name, but not tmp's allocs.
	if _, _, err := c.Jobs().Deregister("tmpjob", true, &api.WriteOptions{Namespace: "tmp"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Namespaces().Delete("tmp", nil); err != nil {
		t.Fatal(err)
	}
	if r := getList(t, a, "/v1/allocations?namespace=*", v.tokens["root"].SecretID); !strings.Contains(r.body, `"JobID":"tmpjob"`) {
		t.Skipf("the deleted namespace's allocs were collected: %s", r.body)
	}
	if r := getList(t, a, "/v1/allocations?namespace=*", v.tokens["named"].SecretID); strings.Contains(r.body, `"JobID":"tmpjob"`) {
		t.Fatalf("named token sees the deleted namespace's allocs: %s", r.body)
	}
	check("after the namespace's deletion")
}

// TestListReplyCache_FollowerStaleAsUncached: a follower answers a
// stale listing from its own state and cache, for every view, the same
// status, index, next token and bytes as its uncached stale path, cold,
// warm and after changes (a policy update and new allocs, replicated);
// a listing that is not stale is forwarded, never answered from its
// cache.
func TestListReplyCache_FollowerStaleAsUncached(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-server cluster")
	}
	aclOn := func(cfg *config.Config) {
		allSchedulers(cfg)
		cfg.ACL.Enabled = true
	}
	s1 := startClusterServerWith(t, "s1", t.TempDir(), nil, aclOn)
	join := []string{s1.agent.Server().SerfAddr()}
	nodes := []*clusterNode{s1, startClusterServerWith(t, "s2", t.TempDir(), join, aclOn), startClusterServerWith(t, "s3", t.TempDir(), join, aclOn)}
	leader := waitForLeader(t, nodes, 3)
	f := follower(nodes, leader)
	c := leader.api
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSecretID(root.SecretID)
	ids := seedListCluster(t, leader.agent, c)
	secrets := []string{root.SecretID}
	for _, name := range []string{"prod-a", "not-prod", "glob-pr", "list-only"} {
		if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: viewPolicies[name]}, nil); err != nil {
			t.Fatal(err)
		}
		tok, _, err := c.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{name}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, tok.SecretID)
	}
	secrets = append(secrets, "")
	var paths []string
	for _, p := range cachedListPaths(ids) {
		if strings.Contains(p, "?") {
			paths = append(paths, p+"&stale")
		} else {
			paths = append(paths, p+"?stale")
		}
	}
	paths = append(paths, "/v1/allocations?stale=true&namespace=*")
	// The follower has the last write (the last token) before the
	// comparison: a reply of an older index is read again anyway.
	waitFor(t, "the follower to catch up", 10*time.Second, func() (bool, string) {
		return f.agent.Server().State().LatestIndex() >= leader.agent.Server().State().LatestIndex(), "behind"
	})
	checkListReplies(t, f.agent, "first", false, paths, secrets)
	if s := f.agent.httpHandler.replies.stats(); s.Hits == 0 {
		t.Fatalf("the follower's stale listings never hit its cache: %+v", s)
	}
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "prod-a",
		Rules: viewPolicies["prod-a"] + "\n" + `namespace "default" { policy = "read" }`}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Allocations().Stop(&api.Allocation{ID: ids["alloc"]}, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the follower to catch up", 10*time.Second, func() (bool, string) {
		return f.agent.Server().State().LatestIndex() >= leader.agent.Server().State().LatestIndex(), "behind"
	})
	checkListReplies(t, f.agent, "after a change", true, paths, secrets)

	// Not stale: forwarded, the follower's cache untouched.
	before := f.agent.httpHandler.replies.stats()
	for _, path := range []string{"/v1/allocations", "/v1/jobs?namespace=*", "/v1/nodes", "/v1/nodes?stale=false"} {
		if r := getList(t, f.agent, path, root.SecretID); r.status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
	}
	if after := f.agent.httpHandler.replies.stats(); after.Hits != before.Hits || after.Misses != before.Misses {
		t.Fatalf("a forwarded listing used the follower's cache: %+v then %+v", before, after)
	}

	// Alone, without a leader: stale listings still answer, from the
	// cache, saying no leader is known (X-Nomad-KnownLeader false).
	for _, n := range nodes {
		if n != f {
			n.stop()
		}
	}
	waitFor(t, "the follower to lose its leader", 20*time.Second, func() (bool, string) {
		return f.agent.Server().Leader() == "", "still has one"
	})
	hits := f.agent.httpHandler.replies.stats().Hits
	checkListReplies(t, f.agent, "without a leader", true, paths, secrets)
	if f.agent.httpHandler.replies.stats().Hits == hits {
		t.Fatal("no stale listing without a leader hit the cache")
	}
	if r := getList(t, f.agent, "/v1/allocations?stale", root.SecretID); r.status != 200 || r.knownLeader != "false" {
		t.Fatalf("stale listing without a leader: %d, known leader %q", r.status, r.knownLeader)
	}
}

// TestListReplyCache_ACLChangeDuringBuildNotKept: a policy changed
// between a request's view and the endpoint's own resolution of its
// token gives the reply another ACL's content: it is sent (the answer
// at that time) but not kept under the view it no longer is, at once or
// after a blocking wait; a token of that old view never reads it.
func TestListReplyCache_ACLChangeDuringBuildNotKept(t *testing.T) {
	v := newViewCluster(t)
	a, c := v.a, v.c
	const path = "/v1/allocations?namespace=*"
	prodA, prodB := v.tokens["prod-a"].SecretID, v.tokens["prod-b"].SecretID
	setPolicy := func(rules string) {
		t.Helper()
		if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "prod-a", Rules: rules}, nil); err != nil {
			t.Error(err)
		}
	}
	widened := viewPolicies["prod-a"] + "\n" + `namespace "default" { policy = "read" }`
	for _, blocking := range []bool{false, true} {
		setPolicy(viewPolicies["prod-a"])
		first := getList(t, a, path, prodA) // prod-a and prod-b see the same
		a.httpHandler.replies.reset()
		hook := func() {
			testHookViewed.Store(nil)
			setPolicy(widened)
		}
		testHookViewed.Store(&hook)
		var got listReply
		if blocking {
			done := make(chan listReply, 1)
			go func() { done <- getList(t, a, path+"&wait=20s&index="+first.index, prodA) }()
			waitFor(t, "the hook to run", 10*time.Second, func() (bool, string) { return testHookViewed.Load() == nil, "not yet" })
			time.Sleep(100 * time.Millisecond)
			changeListTables(t, a, "/v1/allocations")
			got = <-done
		} else {
			got = getList(t, a, path, prodA)
		}
		testHookViewed.Store(nil)
		if !strings.Contains(got.body, `"JobID":"web"`) {
			t.Fatalf("blocking %v: the widened token's reply: %d %s", blocking, got.status, got.body)
		}
		r := getList(t, a, path, prodB)
		a.httpHandler.replies.off.Store(true)
		want := getList(t, a, path, prodB)
		a.httpHandler.replies.off.Store(false)
		if r != want || strings.Contains(r.body, `"JobID":"web"`) {
			t.Fatalf("blocking %v: prod-b after prod-a's policy changed under its request:\n got %+v\nwant %+v", blocking, r, want)
		}
	}
}
