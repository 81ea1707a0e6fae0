package agent

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The contract tests (contract_*_test.go) make the calls a nomad CLI
// command makes, through the official client, and check that every field
// the command prints is filled, as Nomad fills it. docs/compat.md maps each
// command to its test.

// requireFilled fails unless each path names a non-zero value in v. A path
// is dotted field names with optional [index] (slices) or [key] (maps):
// "JobSummary.Summary[web].Running", "Allocations[0].ID". Pointers and
// interfaces are followed; a number or bool that Nomad may legitimately
// leave zero should not be listed.
func requireFilled(t *testing.T, command string, v any, paths ...string) {
	t.Helper()
	for _, p := range paths {
		got, ok := lookupPath(reflect.ValueOf(v), p)
		if !ok || !filled(got) {
			t.Errorf("%s: %s is not filled (or absent)", command, p)
		}
	}
}

func filled(v reflect.Value) bool {
	v = derefAll(v)
	if !v.IsValid() {
		return false
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.String:
		return v.Len() > 0
	case reflect.Struct:
		return !v.IsZero()
	}
	return !v.IsZero()
}

func derefAll(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// lookupPath walks one path; ok is false when a step is missing.
func lookupPath(v reflect.Value, path string) (reflect.Value, bool) {
	for _, step := range splitPath(path) {
		name, keys := splitKeys(step)
		if v = derefAll(v); name != "" {
			if !v.IsValid() || v.Kind() != reflect.Struct {
				return reflect.Value{}, false
			}
			if v = v.FieldByName(name); !v.IsValid() {
				return reflect.Value{}, false
			}
		}
		for _, k := range keys {
			var ok bool
			if v, ok = index(derefAll(v), k); !ok {
				return reflect.Value{}, false
			}
		}
	}
	return v, true
}

// splitPath splits a path at the dots outside brackets, so map keys may
// hold dots ("Attributes[kernel.name]").
func splitPath(path string) []string {
	var steps []string
	depth, start := 0, 0
	for i, r := range path {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case r == '.' && depth == 0:
			steps = append(steps, path[start:i])
			start = i + 1
		}
	}
	return append(steps, path[start:])
}

// splitKeys splits "Summary[web][0]" into "Summary" and ["web", "0"].
func splitKeys(step string) (string, []string) {
	i := strings.IndexByte(step, '[')
	if i < 0 {
		return step, nil
	}
	name, rest := step[:i], strings.TrimSuffix(step[i+1:], "]")
	return name, strings.Split(rest, "][")
}

func index(v reflect.Value, key string) (reflect.Value, bool) {
	switch {
	case !v.IsValid():
	case v.Kind() == reflect.Map:
		e := v.MapIndex(reflect.ValueOf(key))
		return e, e.IsValid()
	case v.Kind() == reflect.Slice:
		if i, err := strconv.Atoi(key); err == nil && i < v.Len() {
			return v.Index(i), true
		}
	}
	return reflect.Value{}, false
}

// TestRequireFilled checks the contract helper itself.
func TestRequireFilled(t *testing.T) {
	type inner struct{ N int }
	v := struct {
		S   string
		P   *inner
		M   map[string]*inner
		L   []inner
		Nil *inner
	}{S: "x", P: &inner{1}, M: map[string]*inner{"k": {2}}, L: []inner{{3}}}
	v.M["a.b"] = &inner{4}
	for _, p := range []string{"S", "P.N", "M[k].N", "L[0].N", "M[a.b].N"} {
		got, ok := lookupPath(reflect.ValueOf(v), p)
		if !ok || !filled(got) {
			t.Errorf("%s: not filled", p)
		}
	}
	for _, p := range []string{"Nil", "Nil.N", "M[x]", "L[1]", "Missing"} {
		if got, ok := lookupPath(reflect.ValueOf(v), p); ok && filled(got) {
			t.Errorf("%s: filled", p)
		}
	}
}
