package testutil

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// OIDCProvider is an OpenID Connect provider for tests: a discovery
// document, a JWKS, an authorize endpoint that signs "alice" in at once
// and redirects back with a code, a token endpoint that issues an ES256
// ID token for the code, and a userinfo endpoint. Its fields change what
// it issues, so tests can make it misbehave. It does not forget a code
// once exchanged: that a code is used once is the relying party's check
// under test.
type OIDCProvider struct {
	URL          string
	ClientID     string
	ClientSecret string

	mu       sync.Mutex
	key      *ecdsa.PrivateKey
	signer   jose.Signer
	codes    map[string]oidcGrant
	fetches  map[string]int
	Audience string         // the ID token's aud (default ClientID)
	Nonce    *string        // the ID token's nonce (default the authorize request's)
	Lifetime time.Duration  // the ID token's exp from now (default 5m; negative: expired)
	Claims   map[string]any // extra ID token claims
	UserInfo map[string]any // the userinfo answer's claims besides sub
}

type oidcGrant struct{ nonce, challenge, redirect string }

// NewOIDCProvider starts a provider for client id/secret, closed with t.
func NewOIDCProvider(t testing.TB, clientID, clientSecret string) *OIDCProvider {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "p1"))
	if err != nil {
		t.Fatal(err)
	}
	p := &OIDCProvider{ClientID: clientID, ClientSecret: clientSecret, key: key, signer: signer,
		codes: map[string]oidcGrant{}, fetches: map[string]int{}, Lifetime: 5 * time.Minute}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// Fetches counts the requests to path (e.g. "/keys").
func (p *OIDCProvider) Fetches(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fetches[path]
}

// Set changes the provider's behaviour under its lock.
func (p *OIDCProvider) Set(f func(p *OIDCProvider)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p)
}

func (p *OIDCProvider) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fetches[r.URL.Path]++
	switch r.URL.Path {
	case "/.well-known/openid-configuration":
		json.NewEncoder(w).Encode(map[string]any{"issuer": p.URL, "authorization_endpoint": p.URL + "/authorize",
			"token_endpoint": p.URL + "/token", "userinfo_endpoint": p.URL + "/userinfo", "jwks_uri": p.URL + "/keys",
			"code_challenge_methods_supported": []string{"S256"}})
	case "/keys":
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: "p1", Algorithm: "ES256", Use: "sig"}}})
	case "/authorize":
		q := r.URL.Query()
		if q.Get("client_id") != p.ClientID || q.Get("response_type") != "code" || q.Get("redirect_uri") == "" {
			http.Error(w, "bad authorize request: "+r.URL.RawQuery, http.StatusBadRequest)
			return
		}
		code := fmt.Sprintf("code-%d", len(p.codes)+1)
		p.codes[code] = oidcGrant{nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri")}
		to, _ := url.Parse(q.Get("redirect_uri"))
		back := to.Query()
		back.Set("code", code)
		back.Set("state", q.Get("state"))
		to.RawQuery = back.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	case "/token":
		p.token(w, r)
	case "/userinfo":
		if r.Header.Get("Authorization") != "Bearer at-alice" {
			http.Error(w, "bad access token", http.StatusUnauthorized)
			return
		}
		info := map[string]any{"sub": "alice"}
		for k, v := range p.UserInfo {
			info[k] = v
		}
		json.NewEncoder(w).Encode(info)
	default:
		http.NotFound(w, r)
	}
}

func (p *OIDCProvider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	g, known := p.codes[r.PostForm.Get("code")]
	switch {
	case id != p.ClientID || secret != p.ClientSecret:
		w.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client"})
		return
	case !known || r.PostForm.Get("grant_type") != "authorization_code" || r.PostForm.Get("redirect_uri") != g.redirect:
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant"})
		return
	}
	if g.challenge != "" {
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant", "error_description": "PKCE verifier"})
			return
		}
	}
	aud, nonce := p.ClientID, g.nonce
	if p.Audience != "" {
		aud = p.Audience
	}
	if p.Nonce != nil {
		nonce = *p.Nonce
	}
	now := time.Now()
	claims := map[string]any{"nonce": nonce}
	for k, v := range p.Claims {
		claims[k] = v
	}
	idToken, err := jwt.Signed(p.signer).Claims(jwt.Claims{Issuer: p.URL, Subject: "alice", Audience: jwt.Audience{aud},
		IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(p.Lifetime))}).Claims(claims).Serialize()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": "at-alice", "token_type": "Bearer", "expires_in": 300, "id_token": idToken})
}
