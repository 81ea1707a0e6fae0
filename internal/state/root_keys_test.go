package state

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// TestDeleteRootKey removes one key and leaves the rest; replaying the
// removal (or removing an unknown key) is a no-op, not an error.
func TestDeleteRootKey(t *testing.T) {
	s := newStore(t)
	for i, id := range []string{"k1", "k2"} {
		must(t, s.UpsertRootKey(uint64(10+i), &structs.RootKey{KeyID: id, Algorithm: structs.RootKeyAlgorithmAES256GCM,
			State: structs.RootKeyStateActive}, true))
	}
	must(t, s.DeleteRootKey(20, "k1"))
	must(t, s.DeleteRootKey(21, "k1"))
	keys, err := s.RootKeys(nil)
	must(t, err)
	if len(keys) != 1 || keys[0].KeyID != "k2" || s.Index(TableRootKeys) != 20 {
		t.Fatalf("keys %+v index %d", keys, s.Index(TableRootKeys))
	}
}
