package auth

import "time"

// ACLConfig is the server's side of the agent's acl { } block.
type ACLConfig struct {
	// Enabled makes every endpoint check the caller's token. Off, every
	// request is allowed (and the ACL endpoints answer 400).
	Enabled bool
	// TokenTTL and PolicyTTL bound how long a resolved token (and the
	// policies compiled into it) is cached; the cache is also dropped on
	// any change to the ACL tables. Default 30 s each.
	TokenTTL  time.Duration
	PolicyTTL time.Duration
	// NodeRegistrationToken is the cluster's node credential: a client
	// must present it to register a node. Empty: with ACLs enabled, a
	// token granting node write is required instead; with ACLs off,
	// registration stays open.
	NodeRegistrationToken string
}

// cacheTTL is how long one resolved token may be reused.
func (c ACLConfig) cacheTTL() time.Duration {
	ttl := min(c.TokenTTL, c.PolicyTTL)
	if ttl <= 0 {
		ttl = max(c.TokenTTL, c.PolicyTTL)
	}
	if ttl <= 0 {
		ttl = 30 * time.Second
	}
	return ttl
}
