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
// (IdentityPublicKey) are the JWKS. A request whose token is a JWT may only
// read variables under nomad/jobs, nomad/jobs/<job>[/<group>[/<task>]] of
// its namespace (AuthorizeVariable); an ACL secret is checked against the
// token's variables rules.
package auth
