package agent

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// getWithToken is a GET with an X-Nomad-Token header.
func getWithToken(t *testing.T, addr, path string, q url.Values, secret string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", "http://"+addr+path+"?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if secret != "" {
		req.Header.Set("X-Nomad-Token", secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestACLClient_LogsNeedReadLogsOnEveryAgent runs a task on a client-only
// agent and reads its logs there directly (the agent resolves the token
// with the servers over RPC) and through the server agent (which checks,
// forwards, and the node's agent checks again).
func TestACLClient_LogsNeedReadLogsOnEveryAgent(t *testing.T) {
	first, c := identityAgent(t)
	second := clientOnlyAgent(t, first.RPCAddr())
	job := shellJob("acl-logs", `echo secret-output; sleep 100`)
	job.Constrain(api.NewConstraint("${node.unique.id}", "=", second.Client().NodeID()))
	alloc := runJob(t, c, job)

	secrets := map[string]string{}
	for name, rules := range map[string]string{
		"logs": `namespace "default" { capabilities = ["read-logs"] }`,
		"read": `namespace "default" { policy = "read" }`,
		"node": `node { policy = "read" }`,
	} {
		if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: rules}, nil); err != nil {
			t.Fatal(err)
		}
		tok, _, err := c.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{name}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		secrets[name] = tok.SecretID
	}
	q := url.Values{"task": {"t"}, "type": {"stdout"}, "plain": {"true"}}
	path := "/v1/client/fs/logs/" + alloc.ID
	for _, agentAddr := range []string{second.HTTPAddr(), first.HTTPAddr()} {
		for _, denied := range []string{"", secrets["read"], secrets["node"], "00000000-0000-0000-0000-00000000dead"} {
			if code, body := getWithToken(t, agentAddr, path, q, denied); code != http.StatusForbidden || body != "Permission denied\n" {
				t.Errorf("%s with token %q: %d %q, want 403", agentAddr, denied, code, body)
			}
		}
		eventually(t, 10*time.Second, func() string {
			if code, body := getWithToken(t, agentAddr, path, q, secrets["logs"]); code != 200 || body != "secret-output\n" {
				return fmt.Sprintf("%s with read-logs: %d %q", agentAddr, code, body)
			}
			return ""
		})
	}
	// Node-level client endpoints on the client-only agent.
	if code, _ := getWithToken(t, second.HTTPAddr(), "/v1/client/stats", nil, secrets["read"]); code != http.StatusForbidden {
		t.Errorf("client stats with a namespace token: %d, want 403", code)
	}
	if code, body := getWithToken(t, second.HTTPAddr(), "/v1/client/stats", nil, secrets["node"]); code != 200 {
		t.Errorf("client stats with node read: %d %q", code, body)
	}
}
