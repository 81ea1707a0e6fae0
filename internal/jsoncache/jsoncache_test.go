package jsoncache

import (
	"encoding/json"
	"fmt"
	"testing"
)

type obj struct {
	ID          string
	ModifyIndex uint64
	Count       int
}

type view struct {
	ID     string
	Double int `json:",omitempty"`
}

func toView(variant uint8) func(*obj) any {
	return func(o *obj) any {
		v := view{ID: o.ID}
		if variant == 1 {
			v.Double = 2 * o.Count
		}
		return v
	}
}

func key(o *obj, variant uint8) Key { return Key{o.ID, o.ModifyIndex, variant} }

func TestGetEncodesOncePerVersionAndVariant(t *testing.T) {
	c := New[obj](1 << 20)
	a := &obj{ID: "a", ModifyIndex: 5, Count: 3}
	for range 3 {
		for variant := range uint8(2) {
			got, err := c.Get(key(a, variant), a, toView(variant))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(toView(variant)(a))
			if string(got) != string(want) {
				t.Fatalf("variant %d: got %s, want %s", variant, got, want)
			}
		}
	}
	if s := c.Stats(); s.Misses != 2 || s.Hits != 4 || s.Entries != 2 {
		t.Fatalf("stats %+v, want 2 misses (one per variant), 4 hits, 2 entries", s)
	}
	// A new version of the object (a store write stamps a new index) is
	// encoded afresh.
	b := &obj{ID: "a", ModifyIndex: 6, Count: 4}
	got, _ := c.Get(key(b, 1), b, toView(1))
	if string(got) != `{"ID":"a","Double":8}` {
		t.Fatalf("the new version got %s", got)
	}
}

// TestBoundedByBytes: however many versions pass through, the cache holds
// at most its budget, and recent entries survive a generation turn when
// they are used.
func TestBoundedByBytes(t *testing.T) {
	const budget = 64 << 10
	c := New[obj](budget)
	hot := &obj{ID: "hot", ModifyIndex: 1}
	for i := range 20_000 {
		o := &obj{ID: fmt.Sprintf("obj-%d", i), ModifyIndex: uint64(i)}
		if _, err := c.Get(key(o, 0), o, toView(0)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(key(hot, 0), hot, toView(0)); err != nil {
			t.Fatal(err)
		}
		if s := c.Stats(); s.Bytes > budget {
			t.Fatalf("after %d objects the cache holds %d bytes, over its %d budget", i+1, s.Bytes, budget)
		}
	}
	if s := c.Stats(); s.Hits < 19_000 {
		t.Fatalf("stats %+v: the object read every time should stay cached", s)
	}
}

func TestTooBigForTheCacheStillAnswers(t *testing.T) {
	c := New[obj](10) // smaller than one encoding
	a := &obj{ID: "abcdefghijkl"}
	for range 2 {
		got, err := c.Get(key(a, 0), a, toView(0))
		if err != nil || string(got) != `{"ID":"abcdefghijkl"}` {
			t.Fatalf("got %s, %v", got, err)
		}
	}
	if s := c.Stats(); s.Bytes != 0 || s.Misses != 2 {
		t.Fatalf("stats %+v: an encoding over the budget must be made every time and never kept", s)
	}
}
