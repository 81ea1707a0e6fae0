package auth

import (
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/drover-project/drover/internal/server/coded"
	"github.com/drover-project/drover/internal/structs"
)

// The keyring: AES-256-GCM root keys in the state store (replicated by
// raft), their material wrapped with the cluster's key-encryption key
// (keystore.go). Variables are sealed with the active key before a write
// is proposed, so raft entries, snapshots and the state store hold only
// ciphertext; any server opens them with the key named in the variable.

// errKeyringNotReady answers writes before the leader created a key.
var errKeyringNotReady = coded.New(http.StatusServiceUnavailable, "keyring: no active root key yet")

// NewRootKey draws fresh key material and ID from crypto/rand, done before
// the entry is proposed. Neither comes from the server's ID source: a key
// must be unguessable, and the simulator's seeded ID stream stays the same
// whether or not a key was made.
// The material is wrapped with the KEK before it leaves this server.
func (s *Service) NewRootKey(kek []byte) (*structs.RootKey, error) {
	material := make([]byte, 32)
	if _, err := rand.Read(material); err != nil {
		return nil, fmt.Errorf("keyring: drawing key material: %w", err)
	}
	key := &structs.RootKey{KeyID: uuid.NewString(), Algorithm: structs.RootKeyAlgorithmAES256GCM,
		CreateTime: s.now().UnixNano(), State: structs.RootKeyStateActive}
	if err := wrap(kek, key, material); err != nil {
		return nil, err
	}
	s.keys.remember(key.KeyID, material)
	return key, nil
}

// KEKForNewKey is the KEK a new key is wrapped with: this server's, or a
// new one when the keyring is still empty (the cluster's first key).
func (s *Service) KEKForNewKey(keyringEmpty bool) ([]byte, error) {
	if kek := s.keys.current(); kek != nil {
		return kek, nil
	}
	if !keyringEmpty {
		return nil, coded.New(http.StatusServiceUnavailable, "%v", errNoKEK)
	}
	return s.keys.ensure()
}

// EnsureRootKey creates the first root key when the keyring is empty; the
// leader calls it on establishing leadership.
func (s *Service) EnsureRootKey() error {
	keys, err := s.srv.State().RootKeys(nil)
	if err != nil || len(keys) > 0 {
		return err
	}
	kek, err := s.KEKForNewKey(true)
	if err != nil {
		return err
	}
	key, err := s.NewRootKey(kek)
	if err != nil {
		return err
	}
	_, err = s.srv.RaftApply(structs.RootKeyUpsertRequestType, &structs.RootKeyUpsertRequest{Key: key, Rotate: true})
	return err
}

// aead builds the cipher of a root key.
func (s *Service) aead(key *structs.RootKey) (cipher.AEAD, error) {
	material, err := s.keys.materialOf(key)
	if err != nil {
		return nil, err
	}
	return gcmOf(material)
}

// Seal encrypts plaintext with the active key; aad binds the ciphertext to
// where it is stored (namespace and path), so it cannot be moved.
func (s *Service) Seal(plaintext, aad []byte) ([]byte, string, error) {
	key, err := s.srv.State().ActiveRootKey(nil)
	if err != nil {
		return nil, "", err
	}
	if key == nil {
		return nil, "", errKeyringNotReady
	}
	gcm, err := s.aead(key)
	if err != nil {
		return nil, "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, "", err
	}
	return gcm.Seal(nonce, nonce, plaintext, aad), key.KeyID, nil
}

// Open decrypts what Seal produced with the key it names.
func (s *Service) Open(data []byte, keyID string, aad []byte) ([]byte, error) {
	key, err := s.srv.State().RootKeyByID(nil, keyID)
	if err != nil {
		return nil, err
	}
	if key == nil {
		return nil, fmt.Errorf("keyring: root key %s not found", keyID)
	}
	gcm, err := s.aead(key)
	if err != nil {
		return nil, err
	}
	if len(data) < gcm.NonceSize() {
		return nil, errors.New("keyring: ciphertext too short")
	}
	return gcm.Open(nil, data[:gcm.NonceSize()], data[gcm.NonceSize():], aad)
}

// VariableAAD is the associated data a variable's items are sealed with:
// its namespace and path, so the ciphertext cannot be moved elsewhere.
func VariableAAD(namespace, path string) []byte { return []byte(namespace + "\x00" + path) }
