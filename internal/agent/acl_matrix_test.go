package agent

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// The token x endpoint matrix: every route is called with every token,
// through the official client; a call the token's policies do not grant
// must get 403 "Permission denied", and a granted one the row's exact
// status (the fixtures make most granted writes fail validation, so the
// matrix changes little: 400 or 404).

// matrixPolicies are the policies of the matrix's client tokens.
var matrixPolicies = map[string]string{
	"read-default":   `namespace "default" { policy = "read" }`,
	"write-default":  `namespace "default" { policy = "write" }`,
	"read-prod":      `namespace "prod" { policy = "read" }`,
	"scale-default":  `namespace "default" { policy = "scale" }`,
	"logs-default":   `namespace "default" { capabilities = ["read-logs"] }`,
	"list-all":       `namespace "*" { policy = "list" }`,
	"deny-default":   "namespace \"*\" {\n policy = \"write\"\n}\nnamespace \"default\" {\n policy = \"deny\"\n}",
	"node-read":      `node { policy = "read" }`,
	"node-write":     `node { policy = "write" }`,
	"agent-read":     `agent { policy = "read" }`,
	"agent-write":    `agent { policy = "write" }`,
	"operator-read":  `operator { policy = "read" }`,
	"operator-write": `operator { policy = "write" }`,
	// Variables only through a variables block: a namespace's policy
	// grants none (Nomad's rule).
	"vars-default": "namespace \"default\" {\n variables {\n  path \"app/*\" { capabilities = [\"read\", \"write\"] }\n }\n}",
	"vars-prod":    "namespace \"prod\" {\n variables {\n  path \"*\" { capabilities = [\"read\"] }\n }\n}",
}

// Pseudo tokens: the management token, no token, and a secret nobody
// issued.
const (
	tokManagement = "management"
	tokAnonymous  = "anonymous"
	tokBogus      = "bogus"
)

// matrixCase is one endpoint call and the tokens that may make it.
type matrixCase struct {
	method, path string
	body         any
	allowed      []string // besides management
	// status is the exact status every granted token gets (200 for a
	// success the client decodes); 0 where the official client cannot
	// decode the body (the UI's HTML, a snapshot's bytes), which checks
	// only that the call is not denied.
	status int
}

// Sets of tokens, by what they grant.
var (
	readsDefault  = []string{"read-default", "write-default"}
	writesDefault = []string{"write-default"}
	readsProd     = []string{"read-prod", "deny-default"}
	writesProd    = []string{"deny-default"}
	nodeReaders   = []string{"node-read", "node-write"}
	nodeWriters   = []string{"node-write"}
	agentReaders  = []string{"agent-read", "agent-write"}
	opReaders     = []string{"operator-read", "operator-write"}
	opWriters     = []string{"operator-write"}
)

func plus(sets ...[]string) []string {
	var out []string
	for _, s := range sets {
		out = append(out, s...)
	}
	return out
}

type matrixFixture struct {
	webEval, webAlloc string // job "web" in default
	apiEval, apiAlloc string // job "api" in prod
	apiDeployment     string
	nodeID            string
}

func matrixCases(f matrixFixture) []matrixCase {
	badJob := func(ns string) any {
		return map[string]any{"Job": map[string]any{"ID": "x", "Name": "x", "Namespace": ns}}
	}
	return []matrixCase{
		// Jobs in default.
		{"GET", "/v1/jobs", nil, plus(readsDefault, []string{"list-all"}), 200},
		{"GET", "/v1/jobs?namespace=prod", nil, plus(readsProd, []string{"list-all"}), 200},
		{"PUT", "/v1/jobs", badJob("default"), writesDefault, 400},
		{"PUT", "/v1/jobs?namespace=default", badJob("prod"), writesProd, 400},
		{"PUT", "/v1/jobs/parse", map[string]any{"JobHCL": "job {"}, readsDefault, 400},
		{"GET", "/v1/job/web", nil, readsDefault, 200},
		{"GET", "/v1/job/api?namespace=prod", nil, readsProd, 200},
		{"PUT", "/v1/job/x", badJob("default"), writesDefault, 400},
		{"DELETE", "/v1/job/nope", nil, writesDefault, 404},
		{"DELETE", "/v1/job/nope?namespace=prod", nil, writesProd, 404},
		{"GET", "/v1/job/web/versions", nil, readsDefault, 200},
		{"GET", "/v1/job/web/evaluations", nil, readsDefault, 200},
		{"GET", "/v1/job/web/allocations", nil, readsDefault, 200},
		{"GET", "/v1/job/web/summary", nil, readsDefault, 200},
		{"GET", "/v1/job/web/explain", nil, readsDefault, 200},
		{"GET", "/v1/job/api/headroom?namespace=prod", nil, readsProd, 200},
		{"GET", "/v1/evaluation/" + f.webEval + "/explain", nil, readsDefault, 200},
		{"GET", "/v1/job/web/deployments", nil, readsDefault, 200},
		{"GET", "/v1/job/web/deployment", nil, readsDefault, 200},
		{"PUT", "/v1/job/web/scale", map[string]any{"Count": -1, "Target": map[string]string{"Group": "web"}}, plus(writesDefault, []string{"scale-default"}), 400},
		{"PUT", "/v1/job/x/plan", badJob("default"), writesDefault, 400},
		{"PUT", "/v1/job/nope/evaluate", map[string]any{"JobID": "nope"}, writesDefault, 404},
		{"PUT", "/v1/job/nope/revert", map[string]any{"JobID": "nope", "JobVersion": 9}, writesDefault, 404},
		{"PUT", "/v1/job/web/periodic/force", nil, writesDefault, 400},
		{"PUT", "/v1/job/web/dispatch", map[string]any{"JobID": "web"}, writesDefault, 400},
		{"GET", "/v1/job/web/actions", nil, readsDefault, 200},
		{"GET", "/v1/job/web/action?action=a&task=t&allocID=" + f.webAlloc, nil, writesDefault, 404},
		{"PUT", "/v1/validate/job", badJob("default"), readsDefault, 200},
		{"PUT", "/v1/search", map[string]any{"Prefix": "w", "Context": "jobs"}, plus(readsDefault, []string{"list-all"}), 200},
		{"PUT", "/v1/search/fuzzy", map[string]any{"Text": "web", "Context": "jobs"}, plus(readsDefault, []string{"list-all"}), 200},

		// Evaluations, allocations, deployments: the object's namespace
		// decides, whatever namespace the request names.
		{"GET", "/v1/evaluations", nil, readsDefault, 200},
		{"GET", "/v1/evaluations/count", nil, readsDefault, 200},
		{"GET", "/v1/evaluation/" + f.webEval, nil, readsDefault, 200},
		{"GET", "/v1/evaluation/" + f.apiEval, nil, readsProd, 200},
		{"GET", "/v1/evaluation/" + f.apiEval + "/allocations", nil, readsProd, 200},
		{"DELETE", "/v1/evaluations", map[string]any{"EvalIDs": []string{}}, nil, 400},
		{"GET", "/v1/allocations", nil, readsDefault, 200},
		{"GET", "/v1/allocations?namespace=prod", nil, readsProd, 200},
		{"GET", "/v1/allocation/" + f.webAlloc, nil, readsDefault, 200},
		{"GET", "/v1/allocation/" + f.apiAlloc, nil, readsProd, 200},
		{"GET", "/v1/deployments", nil, readsDefault, 200},
		{"GET", "/v1/deployment/" + f.apiDeployment, nil, readsProd, 200},
		{"GET", "/v1/deployment/allocations/" + f.apiDeployment, nil, readsProd, 200},
		{"PUT", "/v1/deployment/pause/" + f.apiDeployment, map[string]any{"DeploymentID": f.apiDeployment}, writesProd, 200},
		{"PUT", "/v1/deployment/allocation-health/" + f.apiDeployment, map[string]any{"HealthyAllocationIDs": []string{"nope"}}, writesProd, 400},
		{"PUT", "/v1/deployment/fail/00000000-0000-0000-0000-000000000000", map[string]any{}, writesDefault, 404},

		// Services, variables, keyring.
		{"GET", "/v1/services", nil, readsDefault, 200},
		{"GET", "/v1/job/web/services", nil, readsDefault, 200},
		{"GET", "/v1/allocation/" + f.apiAlloc + "/services", nil, readsProd, 200},
		{"GET", "/v1/var/app/nope", nil, []string{"vars-default"}, 404},
		{"GET", "/v1/var/app/nope?namespace=prod", nil, []string{"vars-prod"}, 404},
		{"PUT", "/v1/var/app/x", map[string]any{"Items": map[string]string{"k": "v"}}, []string{"vars-default"}, 200},
		{"DELETE", "/v1/var/app/x", nil, nil, 204}, // destroy: no token here holds it
		{"GET", "/v1/vars", nil, allTokensButBogus, 200},
		{"GET", "/v1/operator/keyring/keys", nil, nil, 200},

		// Client endpoints of an allocation (forwarded to its node, which
		// has no HTTP address here: 502 once allowed).
		{"GET", "/v1/client/fs/logs/" + f.webAlloc + "?task=server&type=stdout", nil, plus(writesDefault, []string{"logs-default"}), 502},
		{"GET", "/v1/client/fs/logs/" + f.apiAlloc + "?task=server&type=stdout", nil, writesProd, 502},
		{"GET", "/v1/client/fs/ls/" + f.webAlloc, nil, writesDefault, 502},
		{"GET", "/v1/client/fs/stat/" + f.webAlloc + "?path=/", nil, writesDefault, 502},
		{"GET", "/v1/client/fs/cat/" + f.apiAlloc + "?path=/x", nil, writesProd, 502},
		{"GET", "/v1/client/fs/readat/" + f.webAlloc + "?path=/x&offset=0&limit=1", nil, writesDefault, 502},
		{"GET", "/v1/client/allocation/" + f.webAlloc + "/stats", nil, readsDefault, 502},
		{"GET", "/v1/client/allocation/" + f.apiAlloc + "/checks", nil, readsProd, 502},
		{"PUT", "/v1/client/allocation/" + f.apiAlloc + "/restart", map[string]any{}, writesProd, 502},
		{"PUT", "/v1/client/allocation/" + f.webAlloc + "/signal", map[string]any{"Signal": "SIGNOPE"}, writesDefault, 502},
		{"PUT", "/v1/client/allocation/" + f.webAlloc + "/gc", nil, writesDefault, 502},
		{"PUT", "/v1/allocation/" + f.apiAlloc + "/stop", nil, writesProd, 200},
		{"GET", "/v1/client/stats", nil, nodeReaders, 400},
		{"GET", "/v1/client/metadata", nil, nodeReaders, 400},
		{"POST", "/v1/client/metadata", map[string]any{"Meta": map[string]any{}}, nodeWriters, 400},
		{"PUT", "/v1/client/gc", nil, nodeWriters, 400},

		// Nodes.
		{"GET", "/v1/nodes", nil, nodeReaders, 200},
		{"GET", "/v1/node/" + f.nodeID, nil, nodeReaders, 200},
		{"GET", "/v1/node/" + f.nodeID + "/allocations", nil, nodeReaders, 200},
		{"PUT", "/v1/node/nope/drain", map[string]any{"NodeID": "nope"}, nodeWriters, 404},
		{"PUT", "/v1/node/nope/eligibility", map[string]any{"NodeID": "nope", "Eligibility": "bogus"}, nodeWriters, 400},
		{"PUT", "/v1/node/nope/evaluate", nil, nodeWriters, 404},

		// Agent, operator, system.
		{"GET", "/v1/agent/self", nil, agentReaders, 200},
		{"GET", "/v1/agent/host", nil, agentReaders, 200},
		{"GET", "/v1/agent/servers", nil, agentReaders, 400},
		// Gossip keyring: agent:write, list included (Nomad's docs).
		{"GET", "/v1/agent/keyring/list", nil, []string{"agent-write"}, 400},
		{"PUT", "/v1/agent/keyring/install", map[string]any{"Key": "AAAA"}, []string{"agent-write"}, 400},
		{"PUT", "/v1/agent/keyring/use", map[string]any{"Key": "AAAA"}, []string{"agent-write"}, 400},
		{"PUT", "/v1/agent/keyring/remove", map[string]any{"Key": "AAAA"}, []string{"agent-write"}, 400},
		{"GET", "/v1/metrics", nil, agentReaders, 200},
		{"GET", "/v1/agent/pprof/nope", nil, []string{"agent-write"}, 404},
		{"GET", "/v1/operator/raft/configuration", nil, opReaders, 200},
		{"GET", "/v1/operator/scheduler/configuration", nil, opReaders, 200},
		{"PUT", "/v1/operator/whatif", map[string]any{"Kind": "down", "Nodes": []string{f.nodeID}}, opReaders, 200},
		{"GET", "/v1/operator/headroom?cpu=100", nil, opReaders, 200},
		{"PUT", "/v1/operator/scheduler/configuration", map[string]any{"SchedulerAlgorithm": "bogus"}, opWriters, 400},
		{"GET", "/v1/operator/snapshot?stale=bogus", nil, nil, 0},
		{"PUT", "/v1/operator/snapshot", "garbage", nil, 400},
		{"PUT", "/v1/system/gc", nil, nil, 200},
		{"DELETE", "/v1/operator/keyring/key/nope", nil, nil, 404},

		// ACL endpoints.
		{"GET", "/v1/acl/tokens", nil, nil, 200},
		{"PUT", "/v1/acl/token", map[string]any{"Type": "bogus"}, nil, 400},
		{"GET", "/v1/acl/policy/read-prod", nil, []string{"read-prod"}, 200},
		{"PUT", "/v1/acl/policy/x", map[string]any{"Name": "x", "Rules": "node {"}, nil, 400},
		{"DELETE", "/v1/acl/policy/nope", nil, nil, 404},
		{"DELETE", "/v1/acl/token/00000000-0000-0000-0000-000000000000", nil, nil, 404},
		{"GET", "/v1/acl/roles", nil, allTokensButBogus, 200}, // each sees its own roles
		// Auth methods, binding rules, login, one-time tokens.
		{"GET", "/v1/acl/auth-methods", nil, allTokensButBogus, 200}, // a login looks for the default method
		{"PUT", "/v1/acl/auth-method", map[string]any{"Name": "x"}, nil, 400},
		{"GET", "/v1/acl/auth-method/nope", nil, nil, 404},
		{"PUT", "/v1/acl/auth-method/nope", map[string]any{"Type": "JWT"}, nil, 400},
		{"DELETE", "/v1/acl/auth-method/nope", nil, nil, 404},
		{"GET", "/v1/acl/binding-rules", nil, nil, 200},
		{"PUT", "/v1/acl/binding-rule", map[string]any{"AuthMethod": "nope"}, nil, 400},
		{"GET", "/v1/acl/binding-rule/00000000-0000-0000-0000-000000000000", nil, nil, 404},
		{"DELETE", "/v1/acl/binding-rule/00000000-0000-0000-0000-000000000000", nil, nil, 404},
		{"PUT", "/v1/acl/login", map[string]any{"AuthMethodName": "nope", "LoginToken": "x"}, allTokens, 404}, // the JWT is the credential
		{"PUT", "/v1/acl/oidc/auth-url", map[string]any{"AuthMethodName": "nope"}, allTokens, 400},
		{"PUT", "/v1/acl/token/onetime", nil, allTokensButBogus[1:], 200}, // a token makes one for itself; anonymous has none
		{"PUT", "/v1/acl/oidc/complete-auth", map[string]any{"AuthMethodName": "nope", "ClientNonce": "n", "State": "s", "Code": "c", "RedirectURI": "http://x"}, allTokens, 404},
		{"PUT", "/v1/acl/role", map[string]any{"Name": "x"}, nil, 400},
		{"GET", "/v1/acl/role/00000000-0000-0000-0000-000000000000", nil, nil, 404},
		{"GET", "/v1/acl/role/name/nope", nil, nil, 404},
		{"PUT", "/v1/acl/role/00000000-0000-0000-0000-000000000000", map[string]any{"Name": "x"}, nil, 400},
		{"DELETE", "/v1/acl/role/00000000-0000-0000-0000-000000000000", nil, nil, 404},

		// Job history.
		{"GET", "/v1/job/web/submission?version=0", nil, readsDefault, 404},
		{"GET", "/v1/job/api/scale?namespace=prod", nil, plus(readsProd), 200},
		{"PUT", "/v1/job/nope/stable", map[string]any{"JobID": "nope", "JobVersion": 0, "Stable": true}, writesDefault, 404},
		{"PUT", "/v1/job/nope/versions/v1/tag", map[string]any{"Version": 0}, writesDefault, 404},

		// Namespaces.
		{"GET", "/v1/namespaces", nil, allTokensButBogus, 200},
		{"GET", "/v1/namespace/prod", nil, plus(readsProd, []string{"list-all"}), 200},
		{"GET", "/v1/namespace/default", nil, plus(readsDefault, []string{"list-all", "scale-default", "logs-default"}), 200},
		{"PUT", "/v1/namespace/x", map[string]any{"Name": "x"}, nil, 200},
		{"DELETE", "/v1/namespace/nope", nil, nil, 404},

		// Public.
		{"GET", "/v1/status/leader", nil, allTokens, 200},
		{"GET", "/.well-known/jwks.json", nil, allTokens, 200},
		{"GET", "/.well-known/openid-configuration", nil, allTokens, 404}, // 404 without oidc_issuer, for every token
		{"GET", "/v1/agent/health", nil, allTokens, 200},
		{"GET", "/v1/regions", nil, allTokens, 200},
		{"GET", "/ui/", nil, allTokens, 0},
		{"GET", "/", nil, allTokens, 0},
	}
}

// allTokens marks a public endpoint: every token, even none, may call it
// (a bogus secret included: the endpoint does not look at it).
var allTokens = []string{"*"}

// allTokensButBogus: every token that resolves, the anonymous one too.
var allTokensButBogus = []string{tokAnonymous, "read-default", "write-default", "read-prod", "scale-default", "logs-default",
	"list-all", "deny-default", "node-read", "node-write", "agent-read", "agent-write", "operator-read", "operator-write",
	"vars-default", "vars-prod"}

func TestACLMatrix_DeniesWhatPoliciesDoNotGrant(t *testing.T) {
	a, root, rootSecret := matrixAgent(t)
	f := matrixFixtures(t, a, root)
	secrets := matrixTokens(t, root, rootSecret)
	cases := matrixCases(f)

	// First the endpoints alone (they also answer on the RPC port): with
	// the HTTP route checks off, every call that reaches a server
	// endpoint must be decided the same way. (System GC is left to the
	// second pass: it would collect the fixtures.)
	a.httpHandler.routeChecksOff.Store(true)
	serverCells := runMatrix(t, a, secrets, cases, "endpoints alone", func(tc matrixCase) bool {
		return reachesServerEndpoint(tc) && tc.path != "/v1/system/gc"
	})
	a.httpHandler.routeChecksOff.Store(false)
	cells := runMatrix(t, a, secrets, cases, "full", func(matrixCase) bool { return true })
	t.Logf("ACL matrix: %d endpoint calls x %d tokens = %d cells; %d of them again with only the endpoints' checks",
		len(cases), len(secrets), cells, serverCells)
}

// runMatrix makes every selected call with every token and checks that
// exactly the ungranted ones get 403 "Permission denied".
func runMatrix(t *testing.T, a *Agent, secrets map[string]string, cases []matrixCase, pass string, selected func(matrixCase) bool) int {
	t.Helper()
	cells := 0
	for _, tc := range cases {
		if !selected(tc) {
			continue
		}
		for name, secret := range secrets {
			cells++
			want := slicesContains(tc.allowed, name) || slicesContains(tc.allowed, "*") || name == tokManagement
			code, msg := matrixCall(t, a, secret, tc)
			switch {
			case want && code == http.StatusForbidden:
				t.Errorf("%s: %s %s with %s: 403 (%s), want it allowed", pass, tc.method, tc.path, name, msg)
			case !want && code != http.StatusForbidden:
				t.Errorf("%s: %s %s with %s: %d (%s), want 403", pass, tc.method, tc.path, name, code, msg)
			case !want && !strings.Contains(msg, "Permission denied"):
				t.Errorf("%s: %s %s with %s: 403 says %q", pass, tc.method, tc.path, name, msg)
			case want && tc.status != 0 && code != tc.status:
				t.Errorf("%s: %s %s with %s: %d (%s), want %d", pass, tc.method, tc.path, name, code, msg, tc.status)
			}
		}
	}
	return cells
}

// reachesServerEndpoint tells the routes answered by a server endpoint
// from the agent's own (client, agent, status) and the ACL endpoints.
func reachesServerEndpoint(tc matrixCase) bool {
	if tc.method == "DELETE" && tc.body != nil {
		return false // the raw client sends no DELETE body: the handler answers 400 first
	}
	path := tc.path
	if path == "/" || strings.HasPrefix(path, "/v1/job/web/action?") {
		return false // running an action is the exec route's check, made by the agent
	}
	for _, p := range []string{"/ui", "/v1/client/", "/v1/agent/", "/v1/metrics", "/v1/status/", "/v1/regions", "/v1/acl/", "/v1/operator/snapshot", "/v1/jobs/parse"} {
		if strings.HasPrefix(path, p) {
			return false
		}
	}
	return true
}

// matrixAgent starts an ACL-enabled agent with real schedulers and
// returns it with a management client.
func matrixAgent(t *testing.T, opts ...Option) (*Agent, *api.Client, string) {
	t.Helper()
	a, c := testAgentWith(t, func(cfg *config.Config) {
		cfg.ACL.Enabled = true
		cfg.Server.EnabledSchedulers = nil
	}, opts...)
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSecretID(root.SecretID)
	return a, c, root.SecretID
}

// matrixFixtures places job "web" (default) and "api" (prod) on a
// simulated node.
func matrixFixtures(t *testing.T, a *Agent, c *api.Client) matrixFixture {
	t.Helper()
	node := simNode(1, 8000, 16384)
	if _, err := a.Server().RegisterNode(node); err != nil {
		t.Fatal(err)
	}
	f := matrixFixture{nodeID: node.ID}
	if _, err := c.Namespaces().Register(&api.Namespace{Name: "prod"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, j := range []struct{ id, ns string }{{"web", "default"}, {"api", "prod"}} {
		job := testAPIJob(j.id)
		job.Namespace = pointer(j.ns)
		job.TaskGroups[0].Count = pointer(1)
		job.Update = &api.UpdateStrategy{MaxParallel: pointer(1)}
		resp, _, err := c.Jobs().Register(job, nil)
		if err != nil {
			t.Fatal(err)
		}
		q := &api.QueryOptions{Namespace: j.ns}
		var allocs []*api.AllocationListStub
		testutil.WaitFor(t, 15*time.Second, "job "+j.id+" to have an allocation placed", func() bool {
			allocs, _, _ = c.Jobs().Allocations(j.id, false, q)
			return len(allocs) > 0
		})
		if j.ns == "default" {
			f.webEval, f.webAlloc = resp.EvalID, allocs[0].ID
			continue
		}
		f.apiEval, f.apiAlloc = resp.EvalID, allocs[0].ID
		d, _, err := c.Jobs().LatestDeployment(j.id, q)
		if err != nil || d == nil {
			t.Fatalf("job api: no deployment: %v", err)
		}
		f.apiDeployment = d.ID
	}
	return f
}

// matrixTokens creates one client token per policy, plus the pseudo
// tokens; it returns secrets by token name.
func matrixTokens(t *testing.T, c *api.Client, rootSecret string) map[string]string {
	t.Helper()
	out := map[string]string{tokManagement: rootSecret, tokAnonymous: "", tokBogus: "00000000-0000-0000-0000-00000000dead"}
	for name, rules := range matrixPolicies {
		if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: rules}, nil); err != nil {
			t.Fatalf("policy %s: %v", name, err)
		}
		tok, _, err := c.ACLTokens().Create(&api.ACLToken{Name: name, Type: "client", Policies: []string{name}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = tok.SecretID
	}
	return out
}

// matrixCall makes one call with the official client's raw API and
// returns the HTTP status (200 for success) and error text.
func matrixCall(t *testing.T, a *Agent, secret string, tc matrixCase) (int, string) {
	t.Helper()
	c := matrixClient(t, a, secret)
	var err error
	q := &api.QueryOptions{}
	w := &api.WriteOptions{}
	switch tc.method {
	case "GET":
		var out any
		_, err = c.Raw().Query(tc.path, &out, q)
	case "DELETE":
		_, err = c.Raw().Delete(tc.path, nil, w)
	case "POST":
		// The raw API writes with PUT; POST-only routes go through the
		// official client's own call.
		_, err = c.Nodes().Meta().Apply(&api.NodeMetaApplyRequest{Meta: map[string]*string{}}, nil)
	default:
		_, err = c.Raw().Write(tc.path, tc.body, nil, w)
	}
	if err == nil {
		return http.StatusOK, ""
	}
	var code int
	if _, scanErr := fmt.Sscanf(err.Error()[strings.Index(err.Error(), "code: ")+len("code: "):], "%d", &code); scanErr != nil || !strings.Contains(err.Error(), "code: ") {
		return 0, err.Error()
	}
	return code, err.Error()
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestACLLists_ShowOnlyPermittedNamespaces: with namespace=*, and on a
// node's allocations, a token sees the objects of the namespaces its
// policies grant and nothing else.
func TestACLLists_ShowOnlyPermittedNamespaces(t *testing.T) {
	a, root, rootSecret := matrixAgent(t)
	f := matrixFixtures(t, a, root)
	secrets := matrixTokens(t, root, rootSecret)
	all := &api.QueryOptions{Namespace: "*"}
	for _, tc := range []struct {
		token string
		want  []string // namespaces visible
	}{
		{tokManagement, []string{"default", "prod"}},
		{"read-prod", []string{"prod"}},
		{"read-default", []string{"default"}},
		{"deny-default", []string{"prod"}},
		{"node-read", nil},
		{tokAnonymous, nil},
	} {
		c, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr(), SecretID: secrets[tc.token]})
		if err != nil {
			t.Fatal(err)
		}
		var seen []string
		jobs, _, err := c.Jobs().List(all)
		if err != nil {
			t.Fatalf("%s: jobs: %v", tc.token, err)
		}
		for _, j := range jobs {
			seen = append(seen, "job:"+j.Namespace)
		}
		allocs, _, err := c.Allocations().List(all)
		if err != nil {
			t.Fatalf("%s: allocs: %v", tc.token, err)
		}
		for _, al := range allocs {
			seen = append(seen, "alloc:"+al.Namespace)
		}
		evals, _, err := c.Evaluations().List(all)
		if err != nil {
			t.Fatalf("%s: evals: %v", tc.token, err)
		}
		for _, e := range evals {
			seen = append(seen, "eval:"+e.Namespace)
		}
		deps, _, err := c.Deployments().List(all)
		if err != nil {
			t.Fatalf("%s: deployments: %v", tc.token, err)
		}
		for _, d := range deps {
			seen = append(seen, "deployment:"+d.Namespace)
		}
		namespaces, _, err := c.Namespaces().List(nil)
		if err != nil {
			t.Fatalf("%s: namespaces: %v", tc.token, err)
		}
		for _, n := range namespaces {
			seen = append(seen, "namespace:"+n.Name)
		}
		for _, s := range seen {
			_, ns, _ := strings.Cut(s, ":")
			if !slicesContains(tc.want, ns) {
				t.Errorf("%s sees %s", tc.token, s)
			}
		}
		for _, ns := range tc.want {
			for _, kind := range []string{"job", "alloc", "eval", "deployment", "namespace"} {
				if !slicesContains(seen, kind+":"+ns) {
					t.Errorf("%s does not see the %s of namespace %s", tc.token, kind, ns)
				}
			}
		}
	}

	// A node's allocations: node read to ask, read-job per namespace to see.
	nodeAndProd := api.ACLPolicy{Name: "node-prod", Rules: "node {\n policy = \"read\"\n}\nnamespace \"prod\" {\n policy = \"read\"\n}"}
	if _, err := root.ACLPolicies().Upsert(&nodeAndProd, nil); err != nil {
		t.Fatal(err)
	}
	tok, _, err := root.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{"node-prod"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr(), SecretID: tok.SecretID})
	onNode, _, err := c.Nodes().Allocations(f.nodeID, nil)
	if err != nil || len(onNode) != 1 || onNode[0].Namespace != "prod" {
		t.Fatalf("node allocations seen with node read + prod read: %d, %v", len(onNode), err)
	}
	// A search by a token without node read finds no nodes.
	res, _, err := withToken(t, a, secrets["read-default"]).Search().PrefixSearch("1111", "all", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches["nodes"]) != 0 {
		t.Fatalf("search without node read found nodes: %v", res.Matches["nodes"])
	}
	res, _, err = root.Search().PrefixSearch("1111", "all", nil)
	if err != nil || len(res.Matches["nodes"]) != 1 {
		t.Fatalf("management search: %v, %v", res, err)
	}
}

// matrixClients holds one official client per agent and secret, so the
// matrix reuses connections (the agent caps connections per client IP).
var matrixClients sync.Map

func matrixClient(t *testing.T, a *Agent, secret string) *api.Client {
	t.Helper()
	key := a.HTTPAddr() + "|" + secret
	if c, ok := matrixClients.Load(key); ok {
		return c.(*api.Client)
	}
	c, err := api.NewClient(&api.Config{Address: "http://" + a.HTTPAddr(), SecretID: secret})
	if err != nil {
		t.Fatal(err)
	}
	matrixClients.Store(key, c)
	return c
}

// TestACLEventStream_RefusesTopicsTheTokenMayNotRead: as Nomad, a token
// that may not read every topic asked for, in the namespace asked for
// (every namespace for namespace=*), gets 403 before the stream opens;
// no topic means every topic, for management only.
func TestACLEventStream_RefusesTopicsTheTokenMayNotRead(t *testing.T) {
	a, root, rootSecret := matrixAgent(t)
	secrets := matrixTokens(t, root, rootSecret)
	if _, err := root.Namespaces().Register(&api.Namespace{Name: "prod"}, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	jobs := map[api.Topic][]string{api.TopicJob: {"*"}}
	refused := []struct {
		token  string
		topics map[api.Topic][]string
		ns     string
	}{
		{tokBogus, jobs, "default"},
		{tokAnonymous, jobs, "default"},
		{secrets["read-prod"], jobs, "default"},
		{secrets["read-prod"], jobs, "*"}, // default exists and is not readable
		{secrets["read-prod"], map[api.Topic][]string{"*": {"*"}}, "prod"},
		{secrets["read-prod"], nil, "prod"}, // no topic: every topic
		{secrets["read-prod"], map[api.Topic][]string{api.TopicJob: {"*"}, api.TopicNode: {"*"}}, "prod"},
		{secrets["node-read"], jobs, "default"},
		{secrets["node-read"], map[api.Topic][]string{api.TopicNodePool: {"*"}}, "default"},
		{secrets["list-all"], map[api.Topic][]string{api.TopicEvaluation: {"*"}}, "*"},
	}
	for i, r := range refused {
		_, err := withToken(t, a, r.token).EventStream().Stream(ctx, r.topics, 0, &api.QueryOptions{Namespace: r.ns})
		if err == nil || !strings.Contains(err.Error(), "403") {
			t.Errorf("case %d (topics %v, namespace %s): err = %v, want 403 before the stream opens", i, r.topics, r.ns, err)
		}
	}
	for _, ok := range []struct {
		token  string
		topics map[api.Topic][]string
		ns     string
	}{
		{secrets["read-prod"], map[api.Topic][]string{api.TopicJob: {"*"}, api.TopicEvaluation: {"*"}}, "prod"},
		{secrets["node-read"], map[api.Topic][]string{api.TopicNode: {"*"}}, "default"},
		{rootSecret, nil, "*"},
	} {
		if _, err := withToken(t, a, ok.token).EventStream().Stream(ctx, ok.topics, 0, &api.QueryOptions{Namespace: ok.ns}); err != nil {
			t.Errorf("topics %v in %s: %v", ok.topics, ok.ns, err)
		}
	}
}

// TestACLEventStream_SendsOnlyVisibleEvents: a stream allowed when it
// opens still sends only what the token may read: a namespace created
// afterwards under a deny rule stays hidden.
func TestACLEventStream_SendsOnlyVisibleEvents(t *testing.T) {
	a, root, _ := matrixAgent(t)
	if _, err := root.Namespaces().Register(&api.Namespace{Name: "prod"}, nil); err != nil {
		t.Fatal(err)
	}
	secret := clientToken(t, root, "all-but-secret", "namespace \"*\" { policy = \"read\" }\nnamespace \"secret-*\" { policy = \"deny\" }")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	events, err := withToken(t, a, secret).EventStream().Stream(ctx, map[api.Topic][]string{api.TopicJob: {"*"}, api.TopicEvaluation: {"*"}}, 0, &api.QueryOptions{Namespace: "*"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := root.Namespaces().Register(&api.Namespace{Name: "secret-x"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"secret-x", "prod"} {
		job := testAPIJob("ev-" + ns)
		job.Namespace = pointer(ns)
		if _, _, err := root.Jobs().Register(job, nil); err != nil {
			t.Fatal(err)
		}
	}
	sawProdJob := false
	for !sawProdJob {
		select {
		case batch := <-events:
			if batch.Err != nil {
				t.Fatal(batch.Err)
			}
			for _, ev := range batch.Events {
				if ev.Key == "ev-secret-x" || slicesContains(ev.FilterKeys, "ev-secret-x") {
					t.Fatalf("token denied secret-* got %s event %s (%v)", ev.Topic, ev.Key, ev.FilterKeys)
				}
				sawProdJob = sawProdJob || (ev.Topic == api.TopicJob && ev.Key == "ev-prod")
			}
		case <-ctx.Done():
			t.Fatal("no event for the prod job")
		}
	}
}
