package agent

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/drover-project/drover/internal/structs"

	"github.com/drover-project/drover/internal/server"
)

// An empty listing is JSON's [] (Nomad's answer), never null.
func TestListOf_EmptyIsNotNull(t *testing.T) {
	empty, _ := listOf([]*int(nil), func(v *int) *string { s := "x"; return &s }, nil)
	out, err := json.Marshal(empty)
	if err != nil || string(out) != "[]" {
		t.Fatalf("listOf(nil) = %s, %v", out, err)
	}
	one, two := 1, 2
	listed, _ := listOf([]*int{&one, &two}, func(v *int) *int { n := *v * 10; return &n }, nil)
	got := listed.([]*int)
	if len(got) != 2 || *got[0] != 10 || *got[1] != 20 {
		t.Fatalf("listOf kept order and converted each: %v", got)
	}
}

// A read that found nothing is a 404 naming what was asked for.
func TestOneOf_AbsentIs404(t *testing.T) {
	_, err := oneOf[int, int](nil, func(v *int) *int { return v }, nil, "widget %q not found", "w1")
	if server.ErrorCode(err) != 404 || err.Error() != `widget "w1" not found` {
		t.Fatalf("oneOf(nil) = %v (code %d)", err, server.ErrorCode(err))
	}
	v := 7
	got, err := oneOf(&v, func(v *int) *int { n := *v + 1; return &n }, nil, "unused")
	if err != nil || *got.(*int) != 8 {
		t.Fatalf("oneOf(&7) = %v, %v", got, err)
	}
}

// A failed read answers its error, whatever the (empty) reply holds.
func TestListOfAndOneOf_AnswerTheReadError(t *testing.T) {
	failed := server.BadRequest("bad index")
	one := 1
	if out, err := listOf([]*int{&one}, func(v *int) *int { return v }, failed); out != nil || err != failed {
		t.Errorf("listOf with an error = %v, %v; want nil, %v", out, err, failed)
	}
	if out, err := oneOf(&one, func(v *int) *int { return v }, failed, "unused"); out != nil || err != failed {
		t.Errorf("oneOf with an error = %v, %v; want nil, %v", out, err, failed)
	}
}

// readEndpoint's reply is empty, not nil, when the query or the endpoint
// fails, so that reading its fields for listOf and oneOf cannot panic.
func TestReadEndpoint_FailedReplyIsEmptyNotNil(t *testing.T) {
	failing := func(context.Context, *structs.NamespaceListRequest) (*structs.NamespaceListResponse, error) {
		return nil, server.NotFound("gone")
	}
	for _, target := range []string{"/v1/namespaces?index=x", "/v1/namespaces"} {
		reply, err := readEndpoint(httptest.NewRecorder(), httptest.NewRequest("GET", target, nil),
			failing, &structs.NamespaceListRequest{})
		if err == nil || reply == nil {
			t.Errorf("%s: reply %v, err %v; want an empty reply and an error", target, reply, err)
		}
	}
}
