package structs

import (
	"errors"
	"fmt"
	"testing"
)

func TestRPCError_CodeSurvivesTheWireText(t *testing.T) {
	server := fmt.Errorf("node %q: %w", "n1", ErrNodeNotFound)
	wire := EncodeRPCError(server).Error() // all net/rpc carries
	got, ok := DecodeRPCError(wire)
	if !ok || got.Code != RPCErrNodeNotFound {
		t.Fatalf("DecodeRPCError(%q) = %v, %v; want code %q", wire, got, ok, RPCErrNodeNotFound)
	}
	if !errors.Is(got, ErrNodeNotFound) {
		t.Fatalf("decoded %v does not match ErrNodeNotFound", got)
	}
	if got.Msg != server.Error() {
		t.Fatalf("message = %q, want %q", got.Msg, server.Error())
	}
}

func TestRPCError_UncodedErrorsPassUnchanged(t *testing.T) {
	plain := errors.New(`node "x" not found`) // the text alone carries no code
	if EncodeRPCError(plain) != plain {
		t.Fatal("an error without a sentinel must pass unchanged")
	}
	for _, text := range []string{plain.Error(), "rpc-error[bogus]: x", "rpc-error[node-not-found] no separator"} {
		if e, ok := DecodeRPCError(text); ok {
			t.Errorf("DecodeRPCError(%q) = %v; want no code", text, e)
		}
	}
}
