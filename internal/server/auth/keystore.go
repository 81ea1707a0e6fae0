package auth

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/drover-project/drover/internal/structs"
)

// The key-encryption key (KEK) wraps the root keys: raft entries, raft
// snapshots and the state store hold each root key's material sealed with
// it, never in the clear. Every server keeps the same KEK outside raft, in
// DataDir/server/keystore/kek (mode 0600); the server that creates the
// first root key draws it, and the leader hands it to the other servers
// over RPC (keyring_kek.go), each accepting it only if it opens the root
// keys it holds. Unwrapped material is cached in memory.

// KEKSize is the key-encryption key's length in bytes (AES-256).
const KEKSize = 32

// KEKFile is where a server keeps the KEK, under its data dir (mode 0600).
var KEKFile = filepath.Join("server", "keystore", "kek")

var errNoKEK = errors.New("keyring: this server does not hold the key-encryption key yet")

// keystore is a server's KEK and its cache of unwrapped root keys.
type keystore struct {
	dir string // "" in dev mode: the KEK lives in memory only

	mu       sync.Mutex
	kek      []byte
	material map[string][]byte // root key ID -> clear material
}

func newKeystore(dataDir string) (*keystore, error) {
	ks := &keystore{material: map[string][]byte{}}
	if dataDir == "" {
		return ks, nil
	}
	ks.dir = dataDir
	raw, err := os.ReadFile(filepath.Join(dataDir, KEKFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return ks, nil
	case err != nil:
		return nil, fmt.Errorf("keyring: reading the key-encryption key: %w", err)
	case len(raw) != KEKSize:
		return nil, fmt.Errorf("keyring: %s holds %d bytes, want %d", filepath.Join(dataDir, KEKFile), len(raw), KEKSize)
	}
	ks.kek = raw
	return ks, nil
}

// kekID names a KEK without revealing it.
func kekID(kek []byte) string {
	sum := sha256.Sum256(append([]byte("drover kek id\x00"), kek...))
	return hex.EncodeToString(sum[:8])
}

// current returns the KEK, or nil.
func (ks *keystore) current() []byte {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.kek
}

// ensure returns the KEK, drawing and saving a new one if there is none
// (only the server creating the first root key calls it).
func (ks *keystore) ensure() ([]byte, error) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.kek != nil {
		return ks.kek, nil
	}
	kek := make([]byte, KEKSize)
	if _, err := rand.Read(kek); err != nil {
		return nil, err
	}
	if err := ks.save(kek); err != nil {
		return nil, err
	}
	ks.kek = kek
	return kek, nil
}

// install takes a KEK handed over by the leader once verify accepts it;
// installing the one already held is a no-op, another one is refused.
func (ks *keystore) install(kek []byte, verify func([]byte) error) error {
	if len(kek) != KEKSize {
		return fmt.Errorf("keyring: a key-encryption key has %d bytes, got %d", KEKSize, len(kek))
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.kek != nil {
		if bytes.Equal(ks.kek, kek) {
			return nil
		}
		return errors.New("keyring: this server holds a different key-encryption key")
	}
	if err := verify(kek); err != nil {
		return err
	}
	if err := ks.save(kek); err != nil {
		return err
	}
	ks.kek = kek
	return nil
}

// save writes the KEK to the data dir (called with ks.mu held).
func (ks *keystore) save(kek []byte) error {
	if ks.dir == "" {
		return nil
	}
	path := filepath.Join(ks.dir, KEKFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, kek, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func gcmOf(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// wrapAAD binds a wrapped key to its key ID, so wrappings cannot be swapped.
func wrapAAD(keyID string) []byte { return []byte("drover root key\x00" + keyID) }

// wrap seals a new root key's material with kek into key.
func wrap(kek []byte, key *structs.RootKey, material []byte) error {
	gcm, err := gcmOf(kek)
	if err != nil {
		return err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	key.WrappedKey, key.KEKID, key.Key = gcm.Seal(nonce, nonce, material, wrapAAD(key.KeyID)), kekID(kek), nil
	return nil
}

// unwrapWith opens a wrapped root key with kek.
func unwrapWith(kek []byte, key *structs.RootKey) ([]byte, error) {
	gcm, err := gcmOf(kek)
	if err != nil {
		return nil, err
	}
	if len(key.WrappedKey) < gcm.NonceSize() {
		return nil, fmt.Errorf("keyring: root key %s: wrapped material too short", key.KeyID)
	}
	n := gcm.NonceSize()
	out, err := gcm.Open(nil, key.WrappedKey[:n], key.WrappedKey[n:], wrapAAD(key.KeyID))
	if err != nil {
		return nil, fmt.Errorf("keyring: root key %s does not open with this server's key-encryption key", key.KeyID)
	}
	return out, nil
}

// MaterialOf returns a root key's clear material (the tests look for it
// where it must not be: raft, snapshots).
func (s *Service) MaterialOf(key *structs.RootKey) ([]byte, error) { return s.keys.materialOf(key) }

// materialOf returns a root key's clear material: cached, unwrapped with
// the KEK, or (keys from before wrapping) stored in the clear.
func (ks *keystore) materialOf(key *structs.RootKey) ([]byte, error) {
	if len(key.WrappedKey) == 0 {
		if len(key.Key) == 0 {
			return nil, fmt.Errorf("keyring: root key %s has no material", key.KeyID)
		}
		return key.Key, nil
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if m, ok := ks.material[key.KeyID]; ok {
		return m, nil
	}
	if ks.kek == nil {
		return nil, errNoKEK
	}
	m, err := unwrapWith(ks.kek, key)
	if err != nil {
		return nil, err
	}
	ks.material[key.KeyID] = m
	return m, nil
}

// remember caches the material of a key this server just made.
func (ks *keystore) remember(keyID string, material []byte) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	ks.material[keyID] = material
}
