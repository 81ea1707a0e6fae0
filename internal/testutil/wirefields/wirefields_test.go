package wirefields

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"
)

type inner struct{ X, Y int }

type outer struct {
	A       string
	skipped int
	inner
	Named   inner `codec:"named"`
	Dropped int   `json:"-"`
	When    time.Time
	B       []*inner
}

// The field list of a struct is how the msgpack codec sees it.
func TestFields_FollowTheCodecsRules(t *testing.T) {
	_ = outer{}.skipped
	got := Fields(reflect.TypeFor[outer]())
	want := []string{"A string", "X int", "Y int", "Named wirefields.inner", "When time.Time", "B []*wirefields.inner"}
	if !slices.Equal(got, want) {
		t.Fatalf("fields %q, want %q", got, want)
	}
	if all := Structs(reflect.TypeFor[*outer]()); len(all) != 2 {
		t.Fatalf("reachable structs %v, want outer and inner", all)
	}
}

// Appending a field or a struct is a change to record; inserting,
// reordering, retyping or removing a field breaks the format.
func TestCompare_AcceptsOnlyAppends(t *testing.T) {
	recorded := map[string][]string{"s.T": {"A int", "B string"}}
	cases := []struct {
		name    string
		current []string
		broken  bool
		changed bool
	}{
		{"same", []string{"A int", "B string"}, false, false},
		{"appended", []string{"A int", "B string", "C bool"}, false, true},
		{"inserted", []string{"A int", "C bool", "B string"}, true, true},
		{"removed", []string{"A int"}, true, true},
		{"retyped", []string{"A int", "B int"}, true, true},
	}
	for _, c := range cases {
		broken, changed := Compare(recorded, map[string][]string{"s.T": c.current})
		if (len(broken) > 0) != c.broken || changed != c.changed {
			t.Errorf("%s: broken %v changed %v, want broken=%v changed=%v", c.name, broken, changed, c.broken, c.changed)
		}
	}
	if _, changed := Compare(recorded, map[string][]string{"s.T": {"A int", "B string"}, "s.U": {}}); !changed {
		t.Error("a new struct is not a change to record")
	}
}

// The golden file reads back what was written.
func TestGolden_RoundTrips(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "fields.golden")
	want := map[string][]string{"s.T": {"A int", "B string"}, "s.U": {}}
	if err := write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := read(path)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %v (%v), want %v", got, err, want)
	}
}
