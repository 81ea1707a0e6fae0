package authmethod

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/drover-project/drover/internal/structs"
)

// Cache bounds: a fetched JWKS or discovery document is used for KeyTTL;
// a token naming a key ID the cached set lacks refetches the set, at most
// once per RefetchEvery per URL (a flood of tokens with made-up key IDs
// does not become a flood of fetches).
const (
	KeyTTL       = time.Hour
	RefetchEvery = 30 * time.Second
)

// Discovery is the part of an OIDC discovery document Drover uses.
type Discovery struct {
	Issuer                string   `json:"issuer"`
	AuthorizationEndpoint string   `json:"authorization_endpoint"`
	TokenEndpoint         string   `json:"token_endpoint"`
	UserinfoEndpoint      string   `json:"userinfo_endpoint"`
	JWKSURI               string   `json:"jwks_uri"`
	CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
}

// Keys fetches and caches auth methods' JWKS and discovery documents, so
// that a login does not fetch them: each is fetched once per KeyTTL, or
// again (rate-limited) when a token names a key the set lacks. One Keys
// is shared by a server's logins; it is safe for concurrent use.
type Keys struct {
	now     func() time.Time
	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	mu      sync.Mutex // held while fetching: one fetch per URL at a time
	fetched time.Time
	doc     *Discovery
	set     *jose.JSONWebKeySet
}

// NewKeys makes a cache reading time from now (the server's clock).
func NewKeys(now func() time.Time) *Keys {
	return &Keys{now: now, entries: map[string]*cacheEntry{}}
}

func (k *Keys) entry(kind, u string, cas []string) *cacheEntry {
	key := kind + "\x00" + u + "\x00" + strings.Join(cas, "\x00")
	k.mu.Lock()
	defer k.mu.Unlock()
	e := k.entries[key]
	if e == nil {
		e = &cacheEntry{}
		k.entries[key] = e
	}
	return e
}

// Discovery answers the method's discovery document (cached).
func (k *Keys) Discovery(ctx context.Context, c *structs.ACLAuthMethodConfig) (*Discovery, error) {
	e := k.entry("discovery", c.OIDCDiscoveryURL, c.DiscoveryCaPem)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.doc != nil && k.now().Sub(e.fetched) < KeyTTL {
		return e.doc, nil
	}
	var doc Discovery
	if err := fetchJSON(ctx, strings.TrimSuffix(c.OIDCDiscoveryURL, "/")+"/.well-known/openid-configuration", c.DiscoveryCaPem, &doc); err != nil {
		return nil, err
	}
	e.doc, e.fetched = &doc, k.now()
	return &doc, nil
}

// jwks answers the key set at u (cached); wantKID, when the cached set
// lacks it, refetches the set if the last fetch is older than
// RefetchEvery.
func (k *Keys) jwks(ctx context.Context, u string, cas []string, wantKID string) (*jose.JSONWebKeySet, error) {
	e := k.entry("jwks", u, cas)
	e.mu.Lock()
	defer e.mu.Unlock()
	now := k.now()
	if e.set != nil {
		fresh := now.Sub(e.fetched) < KeyTTL
		known := wantKID == "" || len(e.set.Key(wantKID)) > 0
		if fresh && (known || now.Sub(e.fetched) < RefetchEvery) {
			return e.set, nil
		}
	}
	var set jose.JSONWebKeySet
	if err := fetchJSON(ctx, u, cas, &set); err != nil {
		return nil, err
	}
	e.set, e.fetched = &set, now
	return &set, nil
}

// methodKeys are the keys a method verifies a token naming kid with: its
// static keys, or its JWKS (at JWKSURL, or at the jwks_uri of its
// discovery document), cached. A JWKS key with a kid other than the
// token's is left out.
func (k *Keys) methodKeys(ctx context.Context, c *structs.ACLAuthMethodConfig, kid string) ([]any, error) {
	if len(c.JWTValidationPubKeys) > 0 {
		return staticKeys(c)
	}
	jwksURL, cas := c.JWKSURL, []string{c.JWKSCACert}
	if c.OIDCDiscoveryURL != "" {
		doc, err := k.Discovery(ctx, c)
		if err != nil {
			return nil, err
		}
		if doc.JWKSURI == "" {
			return nil, Refused("the discovery document at %s names no jwks_uri", c.OIDCDiscoveryURL)
		}
		jwksURL, cas = doc.JWKSURI, c.DiscoveryCaPem
	}
	set, err := k.jwks(ctx, jwksURL, slices.DeleteFunc(slices.Clone(cas), func(s string) bool { return s == "" }), kid)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(set.Keys))
	for _, key := range set.Keys {
		if (key.Use == "" || key.Use == "sig") && (kid == "" || key.KeyID == "" || key.KeyID == kid) {
			out = append(out, key.Key)
		}
	}
	return out, nil
}
