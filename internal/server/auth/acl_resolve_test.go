package auth

import (
	"errors"
	"testing"
)

// With ACLs off every caller is management; with them on the internal
// token still is, an unknown secret is refused and "" is the anonymous
// caller (no anonymous policy: nothing).
func TestResolveToken_Basics(t *testing.T) {
	off, _ := testService(t, ACLConfig{})
	if a, err := off.ResolveToken("anything"); err != nil || !a.IsManagement() {
		t.Fatalf("ACLs off: %v %v", a, err)
	}
	on, _ := testService(t, ACLConfig{Enabled: true})
	if a, err := on.ResolveToken(on.InternalToken()); err != nil || !a.IsManagement() {
		t.Fatalf("internal token: %v %v", a, err)
	}
	if _, err := on.ResolveToken("00000000-0000-0000-0000-000000000000"); !errors.Is(err, ErrPermissionDenied) {
		t.Fatalf("unknown secret: %v, want ErrPermissionDenied", err)
	}
	if a, err := on.ResolveToken(""); err != nil || a.IsManagement() || a.AllowNodeRead() {
		t.Fatalf("anonymous without a policy: %v %v", a, err)
	}
}
