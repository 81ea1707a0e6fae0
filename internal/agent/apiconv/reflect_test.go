package apiconv

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// go-cmp is not available; these helpers give reflect.DeepEqual failures a
// path and check fixtures and outputs for fields left unset.

// firstDiff returns the path of the first difference between a and b, or "".
func firstDiff(a, b any) string {
	return diffValue("", reflect.ValueOf(a), reflect.ValueOf(b))
}

func diffValue(path string, a, b reflect.Value) string {
	if a.IsValid() != b.IsValid() || (a.IsValid() && a.Type() != b.Type()) {
		return path + ": type or validity differs"
	}
	if !a.IsValid() {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: nil %v vs %v", path, a.IsNil(), b.IsNil())
			}
			return ""
		}
		return diffValue(path, a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if d := diffValue(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice, reflect.Map:
		if a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: nil %v vs %v", path, a.IsNil(), b.IsNil())
		}
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d vs %d", path, a.Len(), b.Len())
		}
		if a.Kind() == reflect.Slice {
			for i := range a.Len() {
				if d := diffValue(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
					return d
				}
			}
			return ""
		}
		for _, k := range sortedKeys(a) {
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				return fmt.Sprintf("%s[%v]: missing", path, k)
			}
			if d := diffValue(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), bv); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return fmt.Sprintf("%s: %v vs %v", path, a.Interface(), b.Interface())
	}
	return ""
}

func sortedKeys(m reflect.Value) []reflect.Value {
	keys := m.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
	return keys
}

// requireEqual fails with the path of the first difference.
func requireEqual(t *testing.T, want, got any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("values differ at %q", firstDiff(want, got))
	}
}

var indexRE = regexp.MustCompile(`\[[^\]]*\]`)

// zeroFields lists the paths (indexes stripped, e.g. "TaskGroups.Tasks.Vault")
// of every exported field of v that holds a zero value, an empty map or an
// empty slice, descending into everything that is set. Paths under a listed
// prefix in skip are not reported.
func zeroFields(v any, skip ...string) []string {
	w := &zeroWalker{skip: map[string]bool{}}
	for _, s := range skip {
		w.skip[s] = true
	}
	w.walk("", reflect.ValueOf(v))
	sort.Strings(w.found)
	return w.found
}

type zeroWalker struct {
	skip  map[string]bool
	found []string
}

func (w *zeroWalker) report(path string) {
	w.found = append(w.found, strings.TrimPrefix(path, "."))
}

func (w *zeroWalker) walk(path string, v reflect.Value) {
	norm := strings.TrimPrefix(indexRE.ReplaceAllString(path, ""), ".")
	if w.skip[norm] {
		return
	}
	switch {
	case v.Type() == timeType:
		if v.Interface().(time.Time).IsZero() {
			w.report(norm)
		}
	case v.Kind() == reflect.Pointer:
		if v.IsNil() {
			w.report(norm)
			return
		}
		w.walk(path, v.Elem())
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				w.walk(path+"."+f.Name, v.Field(i))
			}
		}
	case v.Kind() == reflect.Slice || v.Kind() == reflect.Map:
		if v.Len() == 0 {
			w.report(norm)
			return
		}
		if v.Kind() == reflect.Slice {
			for i := range v.Len() {
				w.walk(fmt.Sprintf("%s[%d]", path, i), v.Index(i))
			}
			return
		}
		for _, k := range sortedKeys(v) {
			w.walk(fmt.Sprintf("%s[%v]", path, k), v.MapIndex(k))
		}
	case v.IsZero():
		w.report(norm)
	}
}

// requireNoZero fails listing every zero-valued field of v outside skip.
func requireNoZero(t *testing.T, v any, skip ...string) {
	t.Helper()
	if z := zeroFields(v, skip...); len(z) > 0 {
		t.Fatalf("%T: zero-valued fields:\n  %s", v, strings.Join(z, "\n  "))
	}
}

// sameByName compares every exported field of the api value a with the
// field of the same name in the structs value b, descending through
// pointers, slices, maps and nested structs, and tolerating the api's
// pointers and differently typed numbers and named strings. Fields only one
// side has are ignored (requireNoZero covers those), as are paths in skip.
type nameMatcher struct{ skip map[string]bool }

func (m nameMatcher) same(path string, a, b reflect.Value) []string {
	if m.skip[strings.TrimPrefix(indexRE.ReplaceAllString(path, ""), ".")] {
		return nil
	}
	a, b = derefValue(a), derefValue(b)
	if !a.IsValid() || !b.IsValid() {
		if a.IsValid() != b.IsValid() && !(a.IsValid() && a.IsZero()) && !(b.IsValid() && b.IsZero()) {
			return []string{path + ": one side nil"}
		}
		return nil
	}
	switch {
	case a.Type() == b.Type():
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return []string{fmt.Sprintf("%s: %v vs %v", path, a.Interface(), b.Interface())}
		}
		return nil
	case a.Kind() == reflect.Struct && b.Kind() == reflect.Struct:
		return m.sameStruct(path, a, b)
	case a.Kind() == reflect.Slice && b.Kind() == reflect.Slice:
		if a.Len() != b.Len() {
			return []string{fmt.Sprintf("%s: len %d vs %d", path, a.Len(), b.Len())}
		}
		var out []string
		for i := range a.Len() {
			out = append(out, m.same(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))...)
		}
		return out
	case a.Kind() == reflect.Map && b.Kind() == reflect.Map:
		if a.Len() != b.Len() {
			return []string{fmt.Sprintf("%s: len %d vs %d", path, a.Len(), b.Len())}
		}
		var out []string
		for _, k := range a.MapKeys() {
			out = append(out, m.same(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), b.MapIndex(k))...)
		}
		return out
	case a.CanInt() || a.CanUint() || a.CanFloat():
		if fmt.Sprint(a.Interface()) != fmt.Sprint(b.Interface()) {
			return []string{fmt.Sprintf("%s: %v vs %v", path, a.Interface(), b.Interface())}
		}
		return nil
	case a.Kind() == reflect.String && b.Kind() == reflect.String:
		if a.String() != b.String() {
			return []string{fmt.Sprintf("%s: %q vs %q", path, a.String(), b.String())}
		}
		return nil
	}
	return []string{fmt.Sprintf("%s: cannot compare %s with %s", path, a.Type(), b.Type())}
}

func (m nameMatcher) sameStruct(path string, a, b reflect.Value) []string {
	var out []string
	for i := range a.NumField() {
		f := a.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous {
			out = append(out, m.same(path, a.Field(i), b)...)
			continue
		}
		if bf := b.FieldByName(f.Name); bf.IsValid() {
			out = append(out, m.same(path+"."+f.Name, a.Field(i), bf)...)
		}
	}
	return out
}

func derefValue(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// requireSameByName fails listing every same-named field whose values
// differ, except under the paths in skip.
func requireSameByName(t *testing.T, apiV, structsV any, skip ...string) {
	t.Helper()
	m := nameMatcher{skip: map[string]bool{}}
	for _, s := range skip {
		m.skip[s] = true
	}
	if d := m.same("", reflect.ValueOf(apiV), reflect.ValueOf(structsV)); len(d) > 0 {
		t.Fatalf("%T vs %T:\n  %s", apiV, structsV, strings.Join(d, "\n  "))
	}
}
