package agent

import (
	"encoding/json"
	"testing"

	"github.com/drover-project/drover/internal/server"
)

// An empty listing is JSON's [] (Nomad's answer), never null.
func TestListOf_EmptyIsNotNull(t *testing.T) {
	out, err := json.Marshal(listOf([]*int(nil), func(v *int) *string { s := "x"; return &s }))
	if err != nil || string(out) != "[]" {
		t.Fatalf("listOf(nil) = %s, %v", out, err)
	}
	one, two := 1, 2
	got := listOf([]*int{&one, &two}, func(v *int) *int { n := *v * 10; return &n })
	if len(got) != 2 || *got[0] != 10 || *got[1] != 20 {
		t.Fatalf("listOf kept order and converted each: %v", got)
	}
}

// A read that found nothing is a 404 naming what was asked for.
func TestOneOf_AbsentIs404(t *testing.T) {
	_, err := oneOf[int, int](nil, func(v *int) *int { return v }, "widget %q not found", "w1")
	if server.ErrorCode(err) != 404 || err.Error() != `widget "w1" not found` {
		t.Fatalf("oneOf(nil) = %v (code %d)", err, server.ErrorCode(err))
	}
	v := 7
	got, err := oneOf(&v, func(v *int) *int { n := *v + 1; return &n }, "unused")
	if err != nil || *got.(*int) != 8 {
		t.Fatalf("oneOf(&7) = %v, %v", got, err)
	}
}
