// Package authmethod is the pure logic of ACL auth methods and binding
// rules (Nomad's JWT and OIDC login): validating an auth method's
// configuration and a binding rule, verifying a login JWT or an OIDC ID
// token against the method's keys (static PEM keys, a JWKS URL or OIDC
// discovery) with go-jose, checking exp/nbf with the method's leeways and
// the bound audiences and issuers, mapping claims to selector variables,
// and evaluating binding rules (go-bexpr selectors, ${value.x}
// interpolation in bind names).
//
// Keys (keys.go) caches JWKS and discovery documents per URL for KeyTTL,
// refetching a set when a token names a key it lacks, at most once per
// RefetchEvery; one Keys serves a server's logins, on its clock.
//
// The OIDC flow (oidc.go): AuthURL builds the provider's authorization
// URL for a pending login (state, the client nonce as nonce, PKCE S256);
// Complete exchanges the code with golang.org/x/oauth2, verifies the ID
// token (iss is the provider's, aud holds the client ID, nonce is the
// client nonce), merges userinfo's claims and maps them. The pending
// login itself lives in raft (state table oidc_auth_request), written and
// consumed by ACL.OIDCAuthURL and ACL.OIDCCompleteAuth in package server.
//
// ACL.Login in package server reads the state, calls Verify and Bind,
// and mints the token through raft. Errors carry their HTTP status
// (server/coded): 400 for a bad configuration, 403 for a refused login,
// naming why.
package authmethod
