package auth

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/drover-project/drover/internal/structs"
)

// The server credential authenticates the calls only servers make to each
// other (a follower's workers dequeuing from the leader's broker, updating
// evals, submitting plans). Every server derives it from the oldest root
// key of the keyring, which raft replicates to servers and nobody else, so
// a caller that merely reaches the RPC port cannot present it.

// serverCredentialLabel domain-separates the derivation from other uses of
// the root key.
const serverCredentialLabel = "drover server rpc credential v1"

// ServerCredential derives the credential; ok is false until the leader
// has created the first root key.
func (s *Service) ServerCredential() (string, bool) {
	return s.deriveCredential(serverCredentialLabel)
}

// deriveCredential is the HMAC of label under the oldest root key's
// material, which every server of the region holds and nothing else; ok
// is false until this server has that key (the leader creates it, raft
// and the KEK hand-over bring it to the others).
func (s *Service) deriveCredential(label string) (string, bool) {
	keys, err := s.srv.State().RootKeys(nil)
	if err != nil || len(keys) == 0 {
		return "", false
	}
	oldest := slices.MinFunc(keys, func(a, b *structs.RootKey) int {
		return cmp.Or(cmp.Compare(a.CreateIndex, b.CreateIndex), strings.Compare(a.KeyID, b.KeyID))
	})
	material, err := s.keys.materialOf(oldest)
	if err != nil {
		return "", false
	}
	mac := hmac.New(sha256.New, material)
	mac.Write([]byte(label))
	return hex.EncodeToString(mac.Sum(nil)), true
}

// AuthorizeServerCall checks a server-only call's credential.
func (s *Service) AuthorizeServerCall(args structs.RPCInfo) error {
	want, ok := s.ServerCredential()
	if !ok || !hmac.Equal([]byte(args.RequestToken()), []byte(want)) {
		return ErrPermissionDenied
	}
	return nil
}
