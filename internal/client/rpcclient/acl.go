package rpcclient

import (
	"context"

	"github.com/drover-project/drover/internal/structs"
)

// ResolveToken asks the servers which token (and policies) a secret
// stands for.
func (c *Client) ResolveToken(ctx context.Context, secret string) (*structs.ResolveACLTokenResponse, error) {
	var out structs.ResolveACLTokenResponse
	return &out, c.call(ctx, structs.RPCACLResolveToken, &structs.ResolveACLTokenRequest{SecretID: secret}, &out)
}
