package authmethod

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// countingJWKS serves a key set it may rotate, counting the fetches.
type countingJWKS struct {
	mu      sync.Mutex
	keys    []jose.JSONWebKey
	fetches int
}

func (c *countingJWKS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fetches++
	json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: c.keys})
}

func (c *countingJWKS) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fetches
}

type kidSigner struct {
	key    *ecdsa.PrivateKey
	signer jose.Signer
}

func newKidSigner(t *testing.T, kid string) *kidSigner {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	return &kidSigner{key: key, signer: s}
}

func (k *kidSigner) jwk(kid string) jose.JSONWebKey {
	return jose.JSONWebKey{Key: &k.key.PublicKey, KeyID: kid, Algorithm: "ES256", Use: "sig"}
}

func (k *kidSigner) token(t *testing.T, now time.Time) string {
	s, err := jwt.Signed(k.signer).Claims(jwt.Claims{Subject: "alice", Expiry: jwt.NewNumericDate(now.Add(24 * time.Hour))}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A JWKS is fetched once and reused for KeyTTL, not per login; a token
// naming a key the cached set lacks refetches it (a rotation), but at
// most once per RefetchEvery however many such tokens come; after KeyTTL
// the set is fetched again.
func TestKeys_JWKSCached(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	clk := clock.NewManual(t0)
	old, rotated := newKidSigner(t, "k1"), newKidSigner(t, "k2")
	srv := &countingJWKS{keys: []jose.JSONWebKey{old.jwk("k1")}}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	m := &structs.ACLAuthMethod{Name: "m", Type: "JWT", Config: &structs.ACLAuthMethodConfig{JWKSURL: hs.URL, SigningAlgs: []string{"ES256"}}}
	keys := NewKeys(clk.Now)
	login := func(s *kidSigner) error {
		_, err := keys.Verify(context.Background(), m, s.token(t, t0), clk.Now())
		return err
	}
	step := func(d time.Duration) { clk.Advance(d) }

	for range 5 {
		if err := login(old); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.count(); n != 1 {
		t.Fatalf("5 logins fetched the JWKS %d times, want 1", n)
	}
	// The provider rotates to k2; a k2 token within RefetchEvery of the
	// last fetch is refused without a fetch.
	srv.mu.Lock()
	srv.keys = []jose.JSONWebKey{old.jwk("k1"), rotated.jwk("k2")}
	srv.mu.Unlock()
	step(RefetchEvery / 2)
	if err := login(rotated); err == nil {
		t.Fatal("a token with an unknown kid verified before the refetch")
	}
	if n := srv.count(); n != 1 {
		t.Fatalf("unknown kid within RefetchEvery fetched: %d", n)
	}
	step(RefetchEvery)
	for range 3 {
		if err := login(rotated); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.count(); n != 2 {
		t.Fatalf("unknown kid after RefetchEvery: %d fetches, want 2", n)
	}
	// A flood of unknown kids costs at most one fetch per RefetchEvery.
	stranger := newKidSigner(t, "k9")
	step(RefetchEvery)
	for range 10 {
		_ = login(stranger)
	}
	if n := srv.count(); n != 3 {
		t.Fatalf("10 unknown-kid tokens: %d fetches, want 3", n)
	}
	step(KeyTTL)
	if err := login(old); err != nil {
		t.Fatal(err)
	}
	if n := srv.count(); n != 4 {
		t.Fatalf("after KeyTTL: %d fetches, want 4", n)
	}
}

// The discovery document is cached like a JWKS.
func TestKeys_DiscoveryCached(t *testing.T) {
	clk := clock.NewManual(time.Unix(1_700_000_000, 0))
	var mu sync.Mutex
	fetches := 0
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fetches++
		mu.Unlock()
		json.NewEncoder(w).Encode(Discovery{Issuer: "https://idp", JWKSURI: "https://idp/keys"})
	}))
	t.Cleanup(hs.Close)
	keys := NewKeys(clk.Now)
	c := &structs.ACLAuthMethodConfig{OIDCDiscoveryURL: hs.URL}
	for range 3 {
		if _, err := keys.Discovery(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	clk.Advance(KeyTTL)
	if _, err := keys.Discovery(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if fetches != 2 {
		t.Fatalf("discovery fetched %d times, want 2", fetches)
	}
}
