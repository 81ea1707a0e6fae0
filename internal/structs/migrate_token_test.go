package structs

import "testing"

// A migrate token holds for its alloc and the node secret it was made
// with, and for nothing else.
func TestMigrateToken(t *testing.T) {
	tok := MigrateToken("alloc-1", "node-secret")
	cases := []struct {
		alloc, secret, token string
		ok                   bool
	}{
		{"alloc-1", "node-secret", tok, true},
		{"alloc-2", "node-secret", tok, false},
		{"alloc-1", "other-secret", tok, false},
		{"alloc-1", "node-secret", "", false},
		{"alloc-1", "", MigrateToken("alloc-1", ""), false},
		{"alloc-1", "node-secret", tok + "x", false},
	}
	for i, c := range cases {
		if got := CompareMigrateToken(c.alloc, c.secret, c.token); got != c.ok {
			t.Errorf("case %d: %v, want %v", i, got, c.ok)
		}
	}
}
