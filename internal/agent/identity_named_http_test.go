package agent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

const droverIssuer = "https://drover.example.com"

// namedIdentityJob runs a task with the default identity in its env and
// three named ones: vault_default (file and env, 1h TTL), cloud (file at
// a filepath) and sneaky (which names Drover's own audience). The task
// copies them to local/ for the test to read through the FS API.
func namedIdentityJob(id string) *api.Job {
	job := shellJob(id, `printf %s "$NOMAD_TOKEN_vault_default" > local/vault.env; `+
		`cp secrets/nomad_vault_default.jwt local/vault.jwt; cp secrets/nomad_sneaky.jwt local/sneaky.jwt; `+
		`printf %s "$NOMAD_TOKEN" > local/default.env; exec sleep 600`)
	task := job.TaskGroups[0].Tasks[0]
	task.Identity = &api.WorkloadIdentity{Env: true}
	task.Identities = []*api.WorkloadIdentity{
		{Name: "vault_default", Audience: []string{"vault.io"}, File: true, Env: true, TTL: time.Hour},
		{Name: "cloud", Audience: []string{"sts.example.com", "other"}, File: true, Filepath: "local/cloud.jwt"},
		{Name: "sneaky", Audience: []string{"nomadproject.io"}, File: true},
	}
	return job
}

// readAllocToken waits for a token the task wrote to path.
func readAllocToken(t *testing.T, c *api.Client, alloc *api.Allocation, path string) string {
	t.Helper()
	var token string
	testutil.WaitFor(t, 10*time.Second, "a token in "+path, func() (bool, string) {
		var err error
		token, err = catAllocFile(c, alloc, path)
		return strings.Count(token, ".") == 2, fmt.Sprintf("%q %v", token, err)
	})
	return token
}

// getJSON GETs url into out, failing on anything but 200.
func getJSON(t *testing.T, url string, out any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// TestNamedIdentities_SignedWrittenAndExposed: a task's named identities
// are signed by the servers with their audience and TTL and reach the
// task as secrets/nomad_<name>.jwt (or their filepath) and
// NOMAD_TOKEN_<name>; none of them is a Drover API credential, not even
// one that names Drover's audience, while the task's default identity
// still reads its job's variables.
func TestNamedIdentities_SignedWrittenAndExposed(t *testing.T) {
	a, c := identityAgent(t)
	if _, _, err := c.Variables().Create(&api.Variable{Path: "nomad/jobs/named", Items: api.VariableItems{"k": "v"}}, nil); err != nil {
		t.Fatal(err)
	}
	alloc := runJob(t, c, namedIdentityJob("named"))
	vault := readAllocToken(t, c, alloc, "t/local/vault.jwt")
	if env := readAllocToken(t, c, alloc, "t/local/vault.env"); env != vault {
		t.Fatalf("NOMAD_TOKEN_vault_default %q is not secrets/nomad_vault_default.jwt %q", env, vault)
	}
	cloud := readAllocToken(t, c, alloc, "t/local/cloud.jwt")
	sneaky := readAllocToken(t, c, alloc, "t/local/sneaky.jwt")
	def := readAllocToken(t, c, alloc, "t/local/default.env")

	claims := func(token string) map[string]any {
		tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.EdDSA})
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := tok.UnsafeClaimsWithoutVerification(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	v := claims(vault)
	if v["aud"] != "vault.io" || !strings.HasSuffix(v["sub"].(string), ":named:g:t:vault_default") || v["nomad_task"] != "t" {
		t.Fatalf("vault_default claims: %v", v)
	}
	if exp, iat := v["exp"].(float64), v["iat"].(float64); exp-iat != time.Hour.Seconds() {
		t.Fatalf("vault_default: exp-iat = %v, want the 1h TTL", exp-iat)
	}
	if cl := claims(cloud); fmt.Sprint(cl["aud"]) != "[sts.example.com other]" || cl["exp"] != nil {
		t.Fatalf("cloud claims: %v (no TTL: no exp)", cl)
	}

	// Only the default identity is a credential for Drover's API.
	for name, token := range map[string]string{"vault_default": vault, "cloud": cloud, "sneaky": sneaky} {
		_, _, err := withToken(t, a, token).Variables().Read("nomad/jobs/named", nil)
		if name == "sneaky" {
			wantHTTPError(t, err, "403", "named identity")
		} else {
			wantHTTPError(t, err, "403", "")
		}
	}
	if got, _, err := withToken(t, a, def).Variables().Read("nomad/jobs/named", nil); err != nil || got.Items["k"] != "v" {
		t.Fatalf("the default identity reads its job's variable: %v %+v", err, got)
	}
}

// TestOIDCDiscovery_VerifiesNamedIdentity: with server { oidc_issuer },
// /.well-known/openid-configuration names the issuer and the JWKS, and a
// verifier that knows only those (go-jose here) verifies a named
// identity's signature, issuer, audience and expiry.
func TestOIDCDiscovery_VerifiesNamedIdentity(t *testing.T) {
	a, c := testAgent(t, func(cfg *config.Config) {
		cfg.Client.Enabled = true
		cfg.DataDir = testutil.DataDir(t)
		cfg.Server.EnabledSchedulers = nil
		cfg.Server.OIDCIssuer = droverIssuer
	})
	base := "http://" + a.HTTPAddr()
	var disco structs.OIDCDiscoveryResponse
	getJSON(t, base+"/.well-known/openid-configuration", &disco)
	if disco.Issuer != droverIssuer || disco.JWKSURI != droverIssuer+"/.well-known/jwks.json" ||
		fmt.Sprint(disco.SigningAlgs) != "[EdDSA]" {
		t.Fatalf("discovery: %+v", disco)
	}
	alloc := runJob(t, c, namedIdentityJob("oidc"))
	token := readAllocToken(t, c, alloc, "t/local/vault.jwt")

	// The verifier fetches the keys where discovery says (the issuer is
	// the cluster's public address; here it is this agent).
	var keys jose.JSONWebKeySet
	getJSON(t, base+strings.TrimPrefix(disco.JWKSURI, droverIssuer), &keys)
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.SignatureAlgorithm(disco.SigningAlgs[0])})
	if err != nil {
		t.Fatal(err)
	}
	found := keys.Key(tok.Headers[0].KeyID)
	if len(found) != 1 {
		t.Fatalf("key %q not in the JWKS", tok.Headers[0].KeyID)
	}
	var std jwt.Claims
	if err := tok.Claims(found[0].Key, &std); err != nil {
		t.Fatalf("signature: %v", err)
	}
	now := time.Now()
	if err := std.Validate(jwt.Expected{Issuer: droverIssuer, AnyAudience: jwt.Audience{"vault.io"}, Time: now}); err != nil {
		t.Fatalf("validate: %v", err)
	}
	for what, exp := range map[string]jwt.Expected{
		"wrong audience": {Issuer: droverIssuer, AnyAudience: jwt.Audience{"nomadproject.io"}, Time: now},
		"wrong issuer":   {Issuer: "https://elsewhere", AnyAudience: jwt.Audience{"vault.io"}, Time: now},
		"expired":        {Issuer: droverIssuer, AnyAudience: jwt.Audience{"vault.io"}, Time: now.Add(2 * time.Hour)},
	} {
		if err := std.Validate(exp); err == nil {
			t.Errorf("%s: validated", what)
		}
	}
	// Signed by another key, the token does not verify.
	for _, k := range keys.Keys {
		if k.KeyID != tok.Headers[0].KeyID {
			if err := tok.Claims(k.Key, &std); err == nil {
				t.Errorf("verified with key %s", k.KeyID)
			}
		}
	}

	// Without oidc_issuer there is no discovery, as in Nomad.
	b, _ := testAgent(t, nil)
	resp, err := http.Get("http://" + b.HTTPAddr() + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("without oidc_issuer: %s, want 404", resp.Status)
	}
}

// TestTaskAPI_ACLsOffAcceptsOnlyWorkloadIdentities: with ACLs off the
// Task API still requires authentication, as Nomad documents it: a
// request without a token or with anything but a valid default workload
// identity (an ACL secret cannot be checked with ACLs off, a named
// identity is not a credential) is a 403; a task's identity gets the API.
func TestTaskAPI_ACLsOffAcceptsOnlyWorkloadIdentities(t *testing.T) {
	a, c := testAgent(t, func(cfg *config.Config) {
		cfg.Client.Enabled = true
		cfg.DataDir = testutil.DataDir(t)
		cfg.Server.EnabledSchedulers = nil
	})
	if _, _, err := c.Variables().Create(&api.Variable{Path: "nomad/jobs/named", Items: api.VariableItems{"k": "v"}}, nil); err != nil {
		t.Fatal(err)
	}
	alloc := runJob(t, c, namedIdentityJob("named"))
	def := readAllocToken(t, c, alloc, "t/local/default.env")
	named := readAllocToken(t, c, alloc, "t/local/sneaky.jwt")
	h := taskAPIHandler{a.httpHandler}
	for _, tc := range []struct {
		name, token string
		code        int
		body        string
	}{
		{"no token", "", http.StatusForbidden, "requires a token"},
		{"an ACL secret", "0b5bd0a2-5e47-4b8e-9d7a-3a2f4e1c9d10", http.StatusForbidden, "only workload identities"},
		{"a named identity", named, http.StatusForbidden, "named identity"},
		{"a forged identity", def[:len(def)-4] + "AAAA", http.StatusForbidden, "invalid token"},
		{"the task's identity", def, http.StatusOK, `"k":"v"`},
	} {
		req := httptest.NewRequest("GET", "/v1/var/nomad/jobs/named", nil)
		if tc.token != "" {
			req.Header.Set("X-Nomad-Token", tc.token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.body) {
			t.Errorf("%s: %d %q, want %d containing %q", tc.name, rec.Code, rec.Body.String(), tc.code, tc.body)
		}
	}
}
