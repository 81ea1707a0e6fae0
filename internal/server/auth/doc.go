// Package auth is a server's authentication and secrets: ACL token
// resolution and its cache, the filters that narrow results to what the
// caller may see, the node and server credentials, workload identities,
// and the keyring that seals variables. Its endpoints (ACL.*, Keyring.*,
// Variables.*, WorkloadIdentity.*) stay in package server and call a
// Service; what the Service needs of the server (state reads, raft writes,
// the other servers of the region) is the Server interface, implemented
// by package server's authHost adapter. It imports no server package but
// server/coded (errors carrying an HTTP status).
//
// # ACLs
//
// ResolveToken(secret) returns the caller's *acl.ACL: ACLs off ->
// management; "" -> the `anonymous` policy if it exists, else nothing;
// unknown or expired -> ErrPermissionDenied (403 "Permission denied",
// never more detail). Resolved tokens are cached per secret until the ACL
// tables' index moves (tables acl_policy, acl_token, acl_role) or the TTL
// passes (ACLConfig.TokenTTL / PolicyTTL, 30 s by default). A token's
// policies are its own and those of the roles it links (TokenPolicyNames).
// InternalToken is a per-process secret, never stored or sent, that
// resolves to management: the agent's own routing lookups use it.
// NamespaceOf answers the namespace of an eval, alloc or deployment
// (global IDs), against whose capabilities a request naming one is
// checked. Lists match only objects of namespaces the caller may read,
// inside the page iteration (VisibleOnly), so namespace=* pages over what
// the caller may see; search drops node contexts without node read.
//
// # Node and server credentials
//
// server { node_registration_token } is the cluster's secret a client
// presents with Node.Register (AuthorizeRegistration). With it set, or
// with ACLs on (then an ACL token with node write also works),
// registering requires it and a node SecretID; nobody can re-register an
// existing node ID with another SecretID, whatever the configuration.
// The agent node credential (AgentNodeCredential: an HMAC of the oldest
// root key under its own label, so every server derives it and only
// servers can) is accepted too: an agent running server and client hands
// it to its in-process client, which needs no node_registration_token. A
// refused token is a 403 wrapping structs.ErrNodeRegistrationDenied that
// names what was missing and the client setting that sets it.
// The calls only servers make (Eval.Dequeue, Eval.Update, Plan.Submit
// from a follower's workers) need the server credential (ServerCredential:
// an HMAC of the oldest keyring root key, which raft replicates to servers
// only).
//
// # Keyring
//
// AES-256-GCM root keys in raft (table root_keys, snapshot tag 62; raft
// entries RootKeyUpsert 63, RootKeyDelete 96, RootKeyState 98,
// VariablesRekey 99; variables are VariableApply 62), their material wrapped (AES-256-GCM, the key ID as
// associated data) with a cluster key-encryption key that is never in
// raft: each server keeps it in <data_dir>/server/keystore/kek (KEKFile,
// 0600; memory only in dev mode). The leader creating the first root key
// (EnsureRootKey, on establishing leadership; material and ID from
// crypto/rand, drawn before the entry) draws it; the leader hands it to
// every other alive server of the region over RPC (PushKEK, a leader duty:
// Keyring.InstallKEK, every 2 s until taken; mutual TLS when the RPC port
// has it), and a server takes it only if it opens a root key raft gave it
// (InstallKEK), so a push can neither plant a key nor reach a server the
// cluster did not admit through gossip. Unwrapped material is cached in
// memory. Keys written before wrapping (clear Key) still open.
//
// Variables are sealed (Seal) with the active key before their entry is
// proposed, the namespace and path as associated data (VariableAAD), so
// raft, snapshots and the state store hold ciphertext only. A full
// rotation marks the older keys rekeying (StartRekey) and the leader's
// rekeyer (ResumeRekey, a leader duty that also resumes on a new leader:
// the state is in raft) re-seals their variables with the new key in
// batches (RekeyBatchVars variables or 256 KiB per VariablesRekeyRequest
// entry, each skipping a variable written since it was read), then marks
// them deprecated.
//
// # Workload identity
//
// An EdDSA JWT per task (SignIdentity), signed with an Ed25519 key derived
// from the active root key, with Nomad's claims; the public keys
// (IdentityPublicKey) are the JWKS. With ACLs on, a request whose token is
// a JWT may only read and list variables under nomad/jobs,
// nomad/jobs/<job>[/<group>[/<task>]] of its namespace (Nomad's implicit
// policy; VariableAccessOf); an ACL secret is checked against the token's
// variables rules. With ACLs off every request may do everything, a
// workload identity's included, as in Nomad. VerifyIdentity (go-jose)
// checks the EdDSA signature by the root key the token names, exp/nbf/iat
// on the server's clock (one minute of leeway), the audience, and that the
// token's allocation exists, is not terminal and is of the token's job and
// namespace, and that it is the task's default identity (the name ending
// its sub): a named identity is never an API credential, whatever its
// audience; FuzzVerifyIdentity fuzzes it.
//
// SignWorkloadIdentity signs any identity of a task as the job declares
// it: its audiences (the default identity's: nomadproject.io), exp = now +
// ttl when it has one, sub global:<ns>:<job>:<group>:<task>:<name>, and
// iss = server { oidc_issuer } when set (Config.OIDCIssuer), which also
// makes WorkloadIdentity.OIDCDiscovery (/.well-known/openid-configuration)
// answer instead of 404. WorkloadIdentity.Sign's Identities name the
// identities a node asks for; the server looks each up in the alloc's job.
//
// # The ACL endpoints
//
// Package server's ACL endpoints (acl_endpoint.go, acl_token_endpoint.go,
// acl_role_endpoint.go) store policies, tokens and roles through raft
// (entries 40-44 and 94-95, tables acl_policy, acl_token, acl_role; see
// packages fsm and state). ACL.Bootstrap works once; again only with the
// reset index written to <data_dir>/server/acl-bootstrap-reset (Nomad's
// procedure; the refusal says the index). UpsertPolicies, DeletePolicies,
// ListPolicies, GetPolicy (management; a client token sees its own
// policies), GetPolicySelf (GET /v1/acl/policy/self: the token's own and
// its roles' policies), UpsertTokens (create, upload with chosen IDs, update
// name/type/policies/roles; expiration fixed at creation from ExpirationTTL,
// 1 m..1 y; token IDs, creation and expiration times decided by the endpoint
// before raft), DeleteTokens, ListTokens (no secrets), GetToken (management
// or the token itself), GetTokenSelf, ResolveToken (also over RPC for
// client-only agents). With ACLs off the ACL endpoints answer 400 "ACL
// support disabled". Core GC deletes expired tokens.
//
// A role is a named set of policies (UUID and name unique). A token's Roles
// link roles by ID or name (stored with both); it holds its own policies
// plus those of its roles as they are now (TokenPolicyNames), so a role's
// change reaches its tokens at once (the resolve cache keys on the role
// table's index too), and a deleted role's link grants nothing. A client
// token needs a policy or a role. ACL.UpsertRoles (create without ID, update
// by ID; names 1-128 letters/digits/dashes, every policy must exist, checked
// again in the FSM), DeleteRoles, ListRoles and GetRole (by ID or name):
// management sees every role, a token only its own (any other, existing or
// not, is 403). HTTP GET /v1/acl/roles, PUT/POST /v1/acl/role,
// GET/PUT/POST/DELETE /v1/acl/role/:id, GET /v1/acl/role/name/:name, in
// Nomad's shapes (api.ACLRoles() works unchanged).
//
// # Who is checked against what
//
// Each RPC method of package server is registered once (methods.go) with its
// access rule (access.go), and Method.Call checks the caller's token against
// it before forwarding or answering. Jobs are checked in the request's
// namespace, job bodies (register, plan, validate) in the job's own
// namespace; evals, allocs and deployments (global IDs) in the namespace of
// the object (NamespaceOf); node calls of a client (register, heartbeat,
// alloc pull/update) authenticate by node credential and node SecretID
// instead, and every later node call touches only that node's allocs; the
// calls only servers make need the server credential. Namespaces: any valid
// token lists them (and sees those it holds a capability in), reading one
// needs a capability in it, writes need management; node pools by the
// node_pool rules as in Nomad (a list shows the readable pools; get and a
// pool's jobs need read, the jobs filtered by list-jobs; its nodes read and
// node read; upsert write; delete delete). Native
// services read with read-job (a client's own registrations by node secret,
// an operator's delete with submit-job); variables are checked per path
// and operation (VariableAccessOf, AuthorizeVariable: read; list for each
// variable a listing shows; write for a set or a lock operation; destroy
// for a delete), granted only by a namespace's variables block (package
// acl); the keyring needs management. -dev generates a random
// node registration credential shared by its server and client.
//
// # Keyring and variables surface
//
// PUT /v1/operator/keyring/rotate adds an active key and makes the others
// inactive (they keep opening what they sealed); with full=true the rekey
// described above runs. GET /v1/operator/keyring/keys lists keys without
// material; DELETE /v1/operator/keyring/key/:id removes an inactive key (a
// key still sealing variables only with force=true). Deprecated root keys
// are kept (they verify identities they signed). Variables (server's
// variables_endpoint.go, agent's variables_http.go): GET /v1/vars?prefix=
// (paged), GET/PUT/DELETE /v1/var/:path, ?cas=N (409 with the stored
// variable on a mismatch), ?lock-acquire / ?lock-renew / ?lock-release: the
// CAS and lock checks run in the FSM against the state the entry meets;
// lease expiry is judged with the proposer's timestamp carried in each entry
// (ExpiresAt + LockDelay), never a server timer; reads stop showing a lease
// once its TTL has passed. Path rules (letters, digits, -_~/, 128 bytes,
// only nomad/jobs[/...] and nomad/job-templates/<name> under nomad/) and a
// 64 KiB items limit answer 400 naming the field. Workload identities are issued to clients over
// WorkloadIdentity.Sign (node-authenticated RPC) and the public keys served
// at /.well-known/jwks.json; identity { env = true file = true } gives the
// task NOMAD_TOKEN and secrets/nomad_token.
package auth
