package server

import (
	"errors"
	"net/http"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestCodedError_KeepsItsCause(t *testing.T) {
	verrs := structs.ValidationErrors{{Field: "TaskGroups[0].Count", Message: "must be >= 0"}}
	err := BadRequest("invalid job: %w", verrs)
	var got structs.ValidationErrors
	if !errors.As(err, &got) || !got.HasField("TaskGroups[0].Count") {
		t.Fatalf("errors.As(%v) lost the ValidationErrors: %v", err, got)
	}
	if code := ErrorCode(err); code != http.StatusBadRequest {
		t.Fatalf("ErrorCode = %d, want 400", code)
	}
	if ErrorCode(verrs) != http.StatusBadRequest {
		t.Fatal("bare ValidationErrors should be a 400")
	}
	if plain := BadRequest("no cause"); errors.Unwrap(plain) != nil {
		t.Fatalf("an error without %%w has no cause, got %v", errors.Unwrap(plain))
	}
}

func TestErrorCode_UnknownNodeIsNotFoundByValue(t *testing.T) {
	err := NotFound("node %q: %w", "n1", structs.ErrNodeNotFound)
	if !errors.Is(err, structs.ErrNodeNotFound) || ErrorCode(err) != http.StatusNotFound {
		t.Fatalf("err = %v (code %d); want ErrNodeNotFound, 404", err, ErrorCode(err))
	}
	wire := structs.EncodeRPCError(err).Error()
	back, ok := structs.DecodeRPCError(wire)
	if !ok || !errors.Is(back, structs.ErrNodeNotFound) {
		t.Fatalf("after the RPC hop %q: %v, %v", wire, back, ok)
	}
}
