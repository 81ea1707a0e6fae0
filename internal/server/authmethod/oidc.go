package authmethod

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"time"

	"golang.org/x/oauth2"

	"github.com/drover-project/drover/internal/structs"
)

// OIDC login (Nomad's /v1/acl/oidc/auth-url and complete-auth): the
// authorization code flow against the provider the method's discovery
// document describes. The ID token is verified by the same code as a JWT
// login (verifyJWT: signature with the discovered, cached keys; exp/nbf
// with the method's leeways; BoundIssuer, BoundAudiences), then against
// the OIDC rules: iss is the discovery document's issuer, aud holds the
// client ID, nonce is the login's client nonce.
//
// Drover differs from Nomad on purpose in the library: golang.org/x/oauth2
// builds the URL and exchanges the code, and go-jose verifies the ID
// token, instead of hashicorp/cap; so the method's leeways and the
// key cache (keys.go) apply to OIDC and JWT logins alike.

// OIDCRequestTTL is how long a pending OIDC login may be completed.
const OIDCRequestTTL = 10 * time.Minute

// CheckRedirect refuses a redirect URI the method does not allow (400).
func CheckRedirect(m *structs.ACLAuthMethod, redirect string) error {
	if !slices.Contains(m.Config.AllowedRedirectURIs, redirect) {
		return bad("RedirectURI: %q is not one of the auth method's AllowedRedirectURIs", redirect)
	}
	return nil
}

func oauthConfig(m *structs.ACLAuthMethod, doc *Discovery, redirect string) *oauth2.Config {
	c := m.Config
	scopes := []string{"openid"}
	for _, s := range c.OIDCScopes {
		if s != "openid" {
			scopes = append(scopes, s)
		}
	}
	return &oauth2.Config{ClientID: c.OIDCClientID, ClientSecret: c.OIDCClientSecret, RedirectURL: redirect, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: doc.AuthorizationEndpoint, TokenURL: doc.TokenEndpoint}}
}

// AuthURL is the provider's authorization URL for the pending login p:
// its state, its client nonce as the OIDC nonce (as Nomad), and an S256
// PKCE challenge when the method enables PKCE.
func (k *Keys) AuthURL(ctx context.Context, m *structs.ACLAuthMethod, p *structs.OIDCAuthRequest) (string, error) {
	doc, err := k.Discovery(ctx, m.Config)
	if err != nil {
		return "", err
	}
	if doc.AuthorizationEndpoint == "" || doc.TokenEndpoint == "" {
		return "", Refused("the discovery document at %s names no authorization_endpoint or token_endpoint", m.Config.OIDCDiscoveryURL)
	}
	opts := []oauth2.AuthCodeOption{oauth2.SetAuthURLParam("nonce", p.ClientNonce)}
	if p.PKCEVerifier != "" {
		opts = append(opts, oauth2.S256ChallengeOption(p.PKCEVerifier))
	}
	return oauthConfig(m, doc, p.RedirectURI).AuthCodeURL(p.State, opts...), nil
}

// Complete finishes the pending login p: it exchanges code at the
// provider's token endpoint, verifies the ID token, merges the userinfo
// endpoint's claims (unless OIDCDisableUserInfo), and maps the claims.
// iss, when the provider sent it back with the code (RFC 9207), must be
// the provider's issuer.
func (k *Keys) Complete(ctx context.Context, m *structs.ACLAuthMethod, p *structs.OIDCAuthRequest, code, iss string, now time.Time) (*Claims, error) {
	c := m.Config
	doc, err := k.Discovery(ctx, c)
	if err != nil {
		return nil, err
	}
	if iss != "" && iss != doc.Issuer {
		return nil, Refused("Iss %q is not the provider's issuer %q", iss, doc.Issuer)
	}
	client := httpClient(c.DiscoveryCaPem)
	xctx, cancel := context.WithTimeout(context.WithValue(ctx, oauth2.HTTPClient, client), 10*time.Second)
	defer cancel()
	var opts []oauth2.AuthCodeOption
	if p.PKCEVerifier != "" {
		opts = append(opts, oauth2.VerifierOption(p.PKCEVerifier))
	}
	tok, err := oauthConfig(m, doc, p.RedirectURI).Exchange(xctx, code, opts...)
	if err != nil {
		return nil, Refused("the provider's token endpoint refused the authorization code: %v", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, Refused("the provider's token response holds no id_token")
	}
	std, all, err := k.verifyJWT(ctx, c, raw, now)
	if err != nil {
		return nil, err
	}
	switch {
	case std.Issuer != doc.Issuer:
		return nil, Refused("the ID token's issuer %q is not the provider's issuer %q", std.Issuer, doc.Issuer)
	case !std.Audience.Contains(c.OIDCClientID):
		return nil, Refused("the ID token's audience %v does not hold the client ID %q", []string(std.Audience), c.OIDCClientID)
	case all["nonce"] != p.ClientNonce:
		return nil, Refused("the ID token's nonce does not match the login's client nonce")
	}
	if !c.OIDCDisableUserInfo && doc.UserinfoEndpoint != "" {
		info, err := userinfo(xctx, client, doc.UserinfoEndpoint, tok)
		if err != nil {
			return nil, err
		}
		if sub, _ := info["sub"].(string); sub != std.Subject {
			return nil, Refused("the userinfo endpoint's subject %q is not the ID token's %q", sub, std.Subject)
		}
		// The signed ID token's claims win over userinfo's.
		for name, v := range info {
			if _, ok := all[name]; !ok {
				all[name] = v
			}
		}
	}
	return MapClaims(c, all)
}

func userinfo(ctx context.Context, client *http.Client, u string, tok *oauth2.Token) (map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, Refused("userinfo endpoint %s: %v", u, err)
	}
	tok.SetAuthHeader(req)
	resp, err := client.Do(req)
	if err != nil {
		return nil, Refused("userinfo endpoint %s: %v", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, Refused("userinfo endpoint %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxFetch))
	if err != nil {
		return nil, Refused("userinfo endpoint %s: %v", u, err)
	}
	info := map[string]any{}
	if err := json.Unmarshal(body, &info); err != nil {
		return nil, Refused("userinfo endpoint %s: %v (a signed userinfo JWT is not supported)", u, err)
	}
	return info, nil
}
