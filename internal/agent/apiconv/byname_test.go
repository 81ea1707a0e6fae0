package apiconv

import (
	"testing"
	"time"
)

type byNameSrc struct {
	Same     string
	Wrapped  time.Duration
	Optional *int
	Unset    *int
	Shared   *bool
	Renamed  string
	List     []string
	hidden   string
}

type byNameDst struct {
	Same     string
	Wrapped  *time.Duration
	Optional int
	Unset    int
	Shared   *bool
	Other    string
	List     []string
	hidden   string
}

// TestByNameCopiesPlainFieldsOnly covers each rule of byName: plain fields
// are copied, wrapped in or unwrapped from the api's optional pointers, and
// copied behind fresh pointers; containers, other names and unexported
// fields are left for the converter.
func TestByNameCopiesPlainFieldsOnly(t *testing.T) {
	seven, yes := 7, true
	src := &byNameSrc{Same: "s", Wrapped: time.Second, Optional: &seven, Shared: &yes,
		Renamed: "r", List: []string{"x"}, hidden: "h"}
	got := byName[byNameDst](src)

	d := time.Second
	requireEqual(t, &byNameDst{Same: "s", Wrapped: &d, Optional: 7, Shared: &yes}, got)
	if got.Shared == src.Shared {
		t.Error("a *T field shares the source's pointer; want a copy")
	}
	if got.hidden != "" {
		t.Error("an unexported field was copied")
	}
	if byName[byNameDst, byNameSrc](nil) != nil {
		t.Error("byName(nil) is not nil")
	}
}
