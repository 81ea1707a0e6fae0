// Package authmethod is the pure logic of ACL auth methods and binding
// rules (Nomad's JWT login): validating an auth method's configuration
// and a binding rule, verifying a login JWT against the method's keys
// (static PEM keys, a JWKS URL or OIDC discovery) with go-jose,
// checking exp/nbf with the method's leeways and the bound audiences and
// issuers, mapping claims to selector variables, and evaluating binding
// rules (go-bexpr selectors, ${value.x} interpolation in bind names).
// ACL.Login in package server reads the state, calls Verify and Bind,
// and mints the token through raft. Errors carry their HTTP status
// (server/coded): 400 for a bad configuration, 403 for a refused login,
// naming why. OIDC-type methods are refused with a 400 naming the type.
package authmethod
