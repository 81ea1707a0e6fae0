package agent

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// browse plays the browser: it opens the auth URL at the provider and
// answers the code and state the provider redirects back with.
func browse(t *testing.T, authURL string) (code, state string) {
	t.Helper()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize: %s location %q %v", resp.Status, resp.Header.Get("Location"), err)
	}
	return loc.Query().Get("code"), loc.Query().Get("state")
}

const oidcRedirect = "http://localhost:4649/oidc/callback"

func oidcMethod(p *testutil.OIDCProvider, name string, pkce bool) *api.ACLAuthMethod {
	return &api.ACLAuthMethod{Name: name, Type: "OIDC", TokenLocality: "local", MaxTokenTTL: time.Hour,
		TokenNameFormat: "${auth_method_name}-${value.user}",
		Config: &api.ACLAuthMethodConfig{OIDCDiscoveryURL: p.URL, OIDCClientID: p.ClientID, OIDCClientSecret: p.ClientSecret,
			OIDCEnablePKCE: pkce, OIDCScopes: []string{"groups"}, AllowedRedirectURIs: []string{oidcRedirect},
			BoundAudiences: []string{p.ClientID}, SigningAlgs: []string{"ES256"},
			ClaimMappings: map[string]string{"sub": "user"}, ListClaimMappings: map[string]string{"groups": "groups"}}}
}

// The OIDC login through the official client against an in-test
// provider: auth-url answers the provider's URL with the state, the
// client nonce and (with PKCE) an S256 challenge; complete-auth exchanges
// the code, verifies the ID token, merges userinfo's claims, applies the
// binding rules and mints a token that works. A second completion with
// the same state and code is refused (the provider would accept it).
func TestACLHTTP_OIDCLogin(t *testing.T) {
	a, c, _ := aclAgent(t)
	p := testutil.NewOIDCProvider(t, "drover-client", "s3cret")
	p.UserInfo = map[string]any{"groups": []string{"eng"}}
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "eng-read", Rules: `namespace "default" { policy = "read" }`}, nil); err != nil {
		t.Fatal(err)
	}
	for _, pkce := range []bool{false, true} {
		name := map[bool]string{false: "corp", true: "corp-pkce"}[pkce]
		if _, _, err := c.ACLAuthMethods().Create(oidcMethod(p, name, pkce), nil); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.ACLBindingRules().Create(&api.ACLBindingRule{AuthMethod: name, Selector: `"eng" in list.groups`,
			BindType: "policy", BindName: "eng-read"}, nil); err != nil {
			t.Fatal(err)
		}
		anon := withToken(t, a, "")
		u, _, err := anon.ACLAuth().GetAuthURL(&api.ACLOIDCAuthURLRequest{AuthMethodName: name, RedirectURI: oidcRedirect, ClientNonce: "cn-1"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		q := mustQuery(t, u.AuthURL)
		if !strings.HasPrefix(u.AuthURL, p.URL+"/authorize?") || q.Get("nonce") != "cn-1" || q.Get("client_id") != "drover-client" ||
			q.Get("redirect_uri") != oidcRedirect || q.Get("scope") != "openid groups" || q.Get("state") == "" ||
			(q.Get("code_challenge_method") == "S256") != pkce {
			t.Fatalf("auth URL %s", u.AuthURL)
		}
		code, state := browse(t, u.AuthURL)
		if state != q.Get("state") {
			t.Fatalf("state %q, sent %q", state, q.Get("state"))
		}
		done := &api.ACLOIDCCompleteAuthRequest{AuthMethodName: name, ClientNonce: "cn-1", State: state, Code: code, RedirectURI: oidcRedirect}
		tok, _, err := anon.ACLAuth().CompleteAuth(done, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tok.Type != "client" || len(tok.Policies) != 1 || tok.Policies[0] != "eng-read" || tok.Name != name+"-alice" ||
			tok.ExpirationTime == nil || tok.SecretID == "" {
			t.Fatalf("token %+v", tok)
		}
		if _, _, err := withToken(t, a, tok.SecretID).Jobs().List(nil); err != nil {
			t.Fatalf("the login's token does not read jobs: %v", err)
		}
		_, _, err = anon.ACLAuth().CompleteAuth(done, nil)
		wantHTTPError(t, err, "403", "already used")
	}
}

func mustQuery(t *testing.T, raw string) url.Values {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

// What an OIDC login must refuse, each a 403 (or 400 for a bad request)
// that says why, never a 500: a wrong client nonce, an ID token with
// another nonce, another audience or already expired, a redirect URI the
// method does not allow, an unknown state.
func TestACLHTTP_OIDCLoginRefusals(t *testing.T) {
	a, c, _ := aclAgent(t)
	p := testutil.NewOIDCProvider(t, "drover-client", "s3cret")
	if _, _, err := c.ACLAuthMethods().Create(oidcMethod(p, "corp", false), nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ACLBindingRules().Create(&api.ACLBindingRule{AuthMethod: "corp", BindType: "management"}, nil); err != nil {
		t.Fatal(err)
	}
	anon := withToken(t, a, "").ACLAuth()
	begin := func() *api.ACLOIDCCompleteAuthRequest {
		u, _, err := anon.GetAuthURL(&api.ACLOIDCAuthURLRequest{AuthMethodName: "corp", RedirectURI: oidcRedirect, ClientNonce: "cn"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		code, state := browse(t, u.AuthURL)
		return &api.ACLOIDCCompleteAuthRequest{AuthMethodName: "corp", ClientNonce: "cn", State: state, Code: code, RedirectURI: oidcRedirect}
	}
	other := "someone-else"
	for _, tc := range []struct {
		name   string
		idp    func(*testutil.OIDCProvider)
		mutate func(*api.ACLOIDCCompleteAuthRequest)
		code   string
		want   string
	}{
		{"wrong client nonce", nil, func(r *api.ACLOIDCCompleteAuthRequest) { r.ClientNonce = "other" }, "403", "ClientNonce does not match"},
		{"ID token nonce", func(p *testutil.OIDCProvider) { p.Nonce = &other }, nil, "403", "nonce does not match"},
		{"bad audience", func(p *testutil.OIDCProvider) { p.Audience = "another-client" }, nil, "403", "audience"},
		{"expired ID token", func(p *testutil.OIDCProvider) { p.Lifetime = -time.Minute }, nil, "403", "expired"},
		{"unknown state", nil, func(r *api.ACLOIDCCompleteAuthRequest) { r.State = "st_nope" }, "403", "state is unknown"},
		{"other redirect", nil, func(r *api.ACLOIDCCompleteAuthRequest) { r.RedirectURI = "http://localhost:1/cb" }, "403", "RedirectURI"},
		{"bad code", nil, func(r *api.ACLOIDCCompleteAuthRequest) { r.Code = "forged" }, "403", "token endpoint refused"},
		{"missing code", nil, func(r *api.ACLOIDCCompleteAuthRequest) { r.Code = "" }, "400", "Code: missing"},
		{"other issuer", nil, func(r *api.ACLOIDCCompleteAuthRequest) { r.Iss = "https://evil.test" }, "403", "not the provider's issuer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.Set(func(p *testutil.OIDCProvider) { p.Nonce, p.Audience, p.Lifetime = nil, "", 5*time.Minute })
			req := begin()
			if tc.idp != nil {
				p.Set(tc.idp)
			}
			if tc.mutate != nil {
				tc.mutate(req)
			}
			_, _, err := anon.CompleteAuth(req, nil)
			wantHTTPError(t, err, tc.code, tc.want)
		})
	}
	_, _, err := anon.GetAuthURL(&api.ACLOIDCAuthURLRequest{AuthMethodName: "corp", RedirectURI: "http://evil.test/cb", ClientNonce: "cn"}, nil)
	wantHTTPError(t, err, "400", "AllowedRedirectURIs")
	// The discovery document and keys were fetched once for all these
	// logins (the cache), not per login.
	if n := p.Fetches("/keys"); n != 1 {
		t.Fatalf("JWKS fetched %d times", n)
	}
}

// Two completions of one login racing (the same state and code, as a
// replay would send them at once): raft decides, exactly one gets a
// token and the other a 403.
func TestACLHTTP_OIDCCompleteRacesOnce(t *testing.T) {
	a, c, _ := aclAgent(t)
	p := testutil.NewOIDCProvider(t, "drover-client", "s3cret")
	if _, _, err := c.ACLAuthMethods().Create(oidcMethod(p, "corp", false), nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ACLBindingRules().Create(&api.ACLBindingRule{AuthMethod: "corp", BindType: "management"}, nil); err != nil {
		t.Fatal(err)
	}
	anon := withToken(t, a, "").ACLAuth()
	u, _, err := anon.GetAuthURL(&api.ACLOIDCAuthURLRequest{AuthMethodName: "corp", RedirectURI: oidcRedirect, ClientNonce: "cn"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	code, state := browse(t, u.AuthURL)
	req := &api.ACLOIDCCompleteAuthRequest{AuthMethodName: "corp", ClientNonce: "cn", State: state, Code: code, RedirectURI: oidcRedirect}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			_, _, err := anon.CompleteAuth(req, nil)
			errs <- err
		}()
	}
	ok := 0
	for range 4 {
		if err := <-errs; err == nil {
			ok++
		} else if !strings.Contains(err.Error(), "403") {
			t.Fatalf("a losing completion: %v, want 403", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d of 4 racing completions got a token, want 1", ok)
	}
}

// OIDCDisableUserInfo: the userinfo endpoint is not asked, so claims only
// it holds do not bind.
func TestACLHTTP_OIDCDisableUserInfo(t *testing.T) {
	a, c, _ := aclAgent(t)
	p := testutil.NewOIDCProvider(t, "drover-client", "s3cret")
	p.UserInfo = map[string]any{"groups": []string{"eng"}}
	m := oidcMethod(p, "corp", false)
	m.Config.OIDCDisableUserInfo = true
	if _, _, err := c.ACLAuthMethods().Create(m, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ACLBindingRules().Create(&api.ACLBindingRule{AuthMethod: "corp", Selector: `"eng" in list.groups`, BindType: "management"}, nil); err != nil {
		t.Fatal(err)
	}
	anon := withToken(t, a, "").ACLAuth()
	u, _, err := anon.GetAuthURL(&api.ACLOIDCAuthURLRequest{AuthMethodName: "corp", RedirectURI: oidcRedirect, ClientNonce: "cn"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	code, state := browse(t, u.AuthURL)
	_, _, err = anon.CompleteAuth(&api.ACLOIDCCompleteAuthRequest{AuthMethodName: "corp", ClientNonce: "cn", State: state, Code: code, RedirectURI: oidcRedirect}, nil)
	wantHTTPError(t, err, "403", "no binding rule")
	if n := p.Fetches("/userinfo"); n != 0 {
		t.Fatalf("userinfo fetched %d times with OIDCDisableUserInfo", n)
	}
}

// auth-url needs no token, so the pending logins are bounded: past 1024
// live ones it answers 429 instead of growing the raft state.
func TestACLHTTP_OIDCPendingBounded(t *testing.T) {
	a, c, _ := aclAgent(t)
	p := testutil.NewOIDCProvider(t, "drover-client", "s3cret")
	if _, _, err := c.ACLAuthMethods().Create(oidcMethod(p, "corp", false), nil); err != nil {
		t.Fatal(err)
	}
	anon := withToken(t, a, "").ACLAuth()
	req := &api.ACLOIDCAuthURLRequest{AuthMethodName: "corp", RedirectURI: oidcRedirect, ClientNonce: "cn"}
	for i := range 1024 {
		if _, _, err := anon.GetAuthURL(req, nil); err != nil {
			t.Fatalf("auth-url %d: %v", i, err)
		}
	}
	_, _, err := anon.GetAuthURL(req, nil)
	wantHTTPError(t, err, "429", "too many OIDC logins pending")
}
