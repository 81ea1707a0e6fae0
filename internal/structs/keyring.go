package structs

// Root keys encrypt variables (AES-256-GCM) and sign workload identities.
// The leader creates the first one when it establishes leadership and
// operators rotate them; every server holds them through raft.

// Root key states (Nomad's names). A full rotation marks the old keys
// rekeying while their variables are sealed again with the new key, then
// deprecated: they seal and open nothing any more, and stay only so
// workload identities they signed still verify.
const (
	RootKeyStateActive     = "active"
	RootKeyStateInactive   = "inactive"
	RootKeyStateRekeying   = "rekeying"
	RootKeyStateDeprecated = "deprecated"
)

// RootKeyAlgorithmAES256GCM is the only algorithm Drover uses.
const RootKeyAlgorithmAES256GCM = "aes256-gcm"

// RootKey is one key of the keyring. Its 32 bytes of key material, drawn
// before the entry is proposed, are stored wrapped: WrappedKey is the
// material sealed (AES-256-GCM) with the cluster's key-encryption key that
// servers keep in their data dir, never in raft; KEKID names that KEK. Key
// holds clear material only in keys written before wrapping existed.
type RootKey struct {
	KeyID       string
	Algorithm   string
	CreateTime  int64
	CreateIndex uint64
	ModifyIndex uint64
	State       string
	Key         []byte
	WrappedKey  []byte
	KEKID       string
}

// Copy returns a deep copy.
func (k *RootKey) Copy() *RootKey {
	if k == nil {
		return nil
	}
	c := *k
	c.Key = append([]byte(nil), k.Key...)
	c.WrappedKey = append([]byte(nil), k.WrappedKey...)
	return &c
}

// Meta is the key without its material.
func (k *RootKey) Meta() *RootKey {
	c := *k
	c.Key, c.WrappedKey = nil, nil
	return &c
}

// RootKeyUpsertRequest is the raft payload adding a key; with Rotate the
// other keys become inactive in the same entry.
type RootKeyUpsertRequest struct {
	Key    *RootKey
	Rotate bool
}

// RootKeyStateRequest is the raft payload changing keys' states (a full
// rotation's rekeying and deprecated steps).
type RootKeyStateRequest struct {
	KeyIDs []string
	State  string
}

// VariablesRekeyRequest is the raft payload of one batch of a full
// rotation: variables sealed again with the active key. Each applies only
// if the variable still has the ModifyIndex it was read at (a write
// meanwhile sealed it with the active key already).
type VariablesRekeyRequest struct {
	Vars []*VariableEncrypted
}

// KeyringRotateArgs asks for a new active key; Full also seals every
// variable again with it and then deprecates the old keys.
type KeyringRotateArgs struct {
	Full bool
	WriteRequest
}

// KeyringInstallKEKRequest hands a server the cluster's key-encryption
// key; it is accepted only if it opens the root keys the server holds.
type KeyringInstallKEKRequest struct {
	KEK []byte
	WriteRequest
}

// KeyringInstallKEKResponse answers an install.
type KeyringInstallKEKResponse struct{ WriteMeta }

// KeyringRotateResponse answers a rotation with the new key (no material).
type KeyringRotateResponse struct {
	Key *RootKey
	WriteMeta
}

// KeyringListRequest lists the keyring.
type KeyringListRequest struct{ QueryOptions }

// KeyringListResponse lists keys without their material.
type KeyringListResponse struct {
	Keys []*RootKey
	QueryMeta
}

// RootKeyDeleteRequest removes an inactive root key from the keyring.
type RootKeyDeleteRequest struct {
	KeyID string
}

// KeyringDeleteArgs asks to remove a root key. Without Force a key that
// still seals variables is refused, since they could no longer be read.
type KeyringDeleteArgs struct {
	KeyID string
	Force bool
	WriteRequest
}

// KeyringDeleteResponse answers a key removal.
type KeyringDeleteResponse struct{ WriteMeta }
