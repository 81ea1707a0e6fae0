package auth

import (
	"bytes"
	"testing"
)

// A KEK is installed only if it opens a root key the server holds.
func TestKeystore_InstallVerifies(t *testing.T) {
	s, _ := testService(t, ACLConfig{})
	if err := s.EnsureRootKey(); err != nil {
		t.Fatal(err)
	}
	good := s.keys.current()
	other := bytes.Repeat([]byte{7}, KEKSize)
	ks := &keystore{material: map[string][]byte{}}
	if err := ks.install(other, s.verifyKEK); err == nil {
		t.Fatal("a KEK wrapping nothing was accepted")
	}
	if err := ks.install(good[:5], s.verifyKEK); err == nil {
		t.Fatal("a short KEK was accepted")
	}
	if err := ks.install(good, s.verifyKEK); err != nil {
		t.Fatalf("the cluster's KEK refused: %v", err)
	}
	if err := ks.install(other, func([]byte) error { return nil }); err == nil {
		t.Fatal("a second, different KEK replaced the first")
	}
}
