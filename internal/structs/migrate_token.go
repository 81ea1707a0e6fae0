package structs

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
)

// MigrateToken is what a client presents to the node of a previous alloc
// to fetch its ephemeral_disk data (GET
// /v1/client/allocation/:id/snapshot), as in Nomad: an HMAC-SHA256 of
// the previous alloc's ID keyed with that node's secret ID. The servers
// hand it only to the client running the alloc that replaces it; the
// previous node checks it with its own secret (CompareMigrateToken), so
// no ACL token has to travel with the alloc.
func MigrateToken(prevAllocID, prevNodeSecretID string) string {
	h := hmac.New(sha256.New, []byte(prevNodeSecretID))
	h.Write([]byte(prevAllocID))
	return base64.URLEncoding.EncodeToString(h.Sum(nil))
}

// CompareMigrateToken reports whether token is allocID's migrate token
// for the node whose secret is nodeSecretID (in constant time).
func CompareMigrateToken(allocID, nodeSecretID, token string) bool {
	if nodeSecretID == "" || token == "" {
		return false
	}
	return hmac.Equal([]byte(MigrateToken(allocID, nodeSecretID)), []byte(token))
}
