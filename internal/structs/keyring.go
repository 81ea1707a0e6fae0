package structs

// Root keys encrypt variables (AES-256-GCM) and sign workload identities.
// The leader creates the first one when it establishes leadership and
// operators rotate them; every server holds them through raft.

// Root key states (Nomad's names).
const (
	RootKeyStateActive   = "active"
	RootKeyStateInactive = "inactive"
)

// RootKeyAlgorithmAES256GCM is the only algorithm Drover uses.
const RootKeyAlgorithmAES256GCM = "aes256-gcm"

// RootKey is one key of the keyring. Key is the 32 bytes of key material,
// drawn before the entry is proposed.
type RootKey struct {
	KeyID       string
	Algorithm   string
	CreateTime  int64
	CreateIndex uint64
	ModifyIndex uint64
	State       string
	Key         []byte
}

// Copy returns a deep copy.
func (k *RootKey) Copy() *RootKey {
	if k == nil {
		return nil
	}
	c := *k
	c.Key = append([]byte(nil), k.Key...)
	return &c
}

// Meta is the key without its material.
func (k *RootKey) Meta() *RootKey {
	c := *k
	c.Key = nil
	return &c
}

// RootKeyUpsertRequest is the raft payload adding a key; with Rotate the
// other keys become inactive in the same entry.
type RootKeyUpsertRequest struct {
	Key    *RootKey
	Rotate bool
}

// KeyringRotateArgs asks for a new active key.
type KeyringRotateArgs struct{ WriteRequest }

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
