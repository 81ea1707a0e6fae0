package state

import (
	"maps"
	"reflect"
	"testing"
)

func TestInternCounts(t *testing.T) {
	var in interner
	first := in.internCounts(map[string]int{"web": 0, "db": 2})
	for _, tc := range []struct {
		name   string
		m      map[string]int
		shared bool
	}{
		{"equal counts share the first map", map[string]int{"db": 2, "web": 0}, true},
		{"another count", map[string]int{"db": 1, "web": 0}, false},
		{"another group", map[string]int{"db": 2, "api": 0}, false},
		{"nil stays nil", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := in.internCounts(tc.m)
			if !maps.Equal(got, tc.m) {
				t.Fatalf("interned %v as %v", tc.m, got)
			}
			if shared := got != nil && reflect.ValueOf(got).UnsafePointer() == reflect.ValueOf(first).UnsafePointer(); shared != tc.shared {
				t.Errorf("shared with the first map: %v, want %v", shared, tc.shared)
			}
		})
	}
}
