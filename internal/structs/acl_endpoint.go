package structs

// Requests and responses of the ACL.* endpoints.

// ACLBootstrapArgs asks for the first management token. BootstrapSecret,
// when set, becomes its SecretID (the operator chose it).
type ACLBootstrapArgs struct {
	BootstrapSecret string
	WriteRequest
}

// ACLPolicyUpsertArgs creates or replaces policies.
type ACLPolicyUpsertArgs struct {
	Policies []*ACLPolicy
	WriteRequest
}

// ACLPolicyDeleteArgs deletes policies by name.
type ACLPolicyDeleteArgs struct {
	Names []string
	WriteRequest
}

// ACLPolicyListRequest lists policies (name prefix in QueryOptions.Prefix).
type ACLPolicyListRequest struct {
	QueryOptions
}

// ACLPolicyListResponse is the policies the caller may see.
type ACLPolicyListResponse struct {
	Policies []*ACLPolicy
	QueryMeta
}

// ACLPolicySpecificRequest addresses one policy by name.
type ACLPolicySpecificRequest struct {
	Name string
	QueryOptions
}

// SingleACLPolicyResponse is one policy (nil when absent).
type SingleACLPolicyResponse struct {
	Policy *ACLPolicy
	QueryMeta
}

// ACLTokenUpsertArgs creates tokens (no AccessorID) or updates them.
type ACLTokenUpsertArgs struct {
	Tokens []*ACLToken
	WriteRequest
}

// ACLTokenUpsertResponse carries the tokens as written.
type ACLTokenUpsertResponse struct {
	Tokens []*ACLToken
	WriteMeta
}

// ACLTokenDeleteArgs deletes tokens by accessor.
type ACLTokenDeleteArgs struct {
	AccessorIDs []string
	WriteRequest
}

// ACLWriteResponse answers writes that return only their index.
type ACLWriteResponse struct {
	WriteMeta
}

// ACLTokenListRequest lists tokens (accessor prefix in QueryOptions.Prefix).
type ACLTokenListRequest struct {
	QueryOptions
}

// ACLTokenListResponse lists tokens; their SecretIDs are blanked.
type ACLTokenListResponse struct {
	Tokens []*ACLToken
	QueryMeta
}

// ACLTokenSpecificRequest addresses one token by accessor.
type ACLTokenSpecificRequest struct {
	AccessorID string
	QueryOptions
}

// SingleACLTokenResponse is one token (nil when absent).
type SingleACLTokenResponse struct {
	Token *ACLToken
	QueryMeta
}

// ResolveACLTokenRequest asks which token a secret belongs to.
type ResolveACLTokenRequest struct {
	SecretID string
	QueryOptions
}

// ResolveACLTokenResponse is the token of a secret (nil for the anonymous
// caller) and the policies it carries, so a client agent can compile the
// same ACL as the server. Disabled reports that ACLs are off.
type ResolveACLTokenResponse struct {
	Token    *ACLToken
	Policies []*ACLPolicy
	Disabled bool
	QueryMeta
}

// ACLRoleUpsertArgs creates roles (no ID) or updates them (by ID).
type ACLRoleUpsertArgs struct {
	Roles []*ACLRole
	WriteRequest
}

// ACLRoleUpsertResponse carries the roles as written.
type ACLRoleUpsertResponse struct {
	Roles []*ACLRole
	WriteMeta
}

// ACLRoleDeleteArgs deletes roles by ID.
type ACLRoleDeleteArgs struct {
	IDs []string
	WriteRequest
}

// ACLRoleListRequest lists roles (name prefix in QueryOptions.Prefix).
type ACLRoleListRequest struct {
	QueryOptions
}

// ACLRoleListResponse is the roles the caller may see.
type ACLRoleListResponse struct {
	Roles []*ACLRole
	QueryMeta
}

// ACLRoleSpecificRequest addresses one role by ID, or by Name when ID is
// empty.
type ACLRoleSpecificRequest struct {
	ID   string
	Name string
	QueryOptions
}

// SingleACLRoleResponse is one role (nil when absent).
type SingleACLRoleResponse struct {
	Role *ACLRole
	QueryMeta
}
