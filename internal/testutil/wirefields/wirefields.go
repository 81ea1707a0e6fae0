// Package wirefields holds the msgpack wire format of Drover's structs to
// append-only changes.
//
// Raft entries and RPCs encode structs as arrays of their fields
// (structs.StructArrayHandle), so where each field sits is part of the
// format: a server must apply entries an older one wrote, and servers and
// clients of two versions talk during a rolling upgrade. A golden file
// records the fields, in order, of every struct reachable from a set of
// root types; Check fails when a recorded list is no longer a prefix of
// the current one.
package wirefields

import (
	"encoding"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// Structs maps every struct type reachable from roots to its fields, each
// "Name type", in encoding order.
func Structs(roots ...reflect.Type) map[string][]string {
	out := map[string][]string{}
	var visit func(reflect.Type)
	visit = func(t reflect.Type) {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			visit(t.Elem())
		case reflect.Map:
			visit(t.Key())
			visit(t.Elem())
		case reflect.Struct:
			if _, seen := out[t.String()]; seen || opaque(t) {
				return
			}
			out[t.String()] = Fields(t)
			for _, f := range visibleFields(t) {
				visit(f.Type)
			}
		}
	}
	for _, t := range roots {
		visit(t)
	}
	return out
}

// Fields are t's fields as the msgpack codec encodes them: exported, not
// tagged "-" (codec tag, else json), embedded structs without a name
// inlined in place.
func Fields(t reflect.Type) []string {
	var out []string
	for _, f := range visibleFields(t) {
		out = append(out, f.Name+" "+f.Type.String())
	}
	return out
}

// opaque types encode as themselves, not as their fields.
func opaque(t reflect.Type) bool {
	marshaler := reflect.TypeFor[encoding.BinaryMarshaler]()
	return t == reflect.TypeFor[time.Time]() || t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler)
}

func visibleFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("codec")
		if !ok {
			tag = f.Tag.Get("json")
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		inner := f.Type
		for inner.Kind() == reflect.Pointer {
			inner = inner.Elem()
		}
		if f.Anonymous && name == "" && inner.Kind() == reflect.Struct && !opaque(inner) {
			out = append(out, visibleFields(inner)...)
			continue
		}
		if f.IsExported() {
			out = append(out, f)
		}
	}
	return out
}

// Check compares current with the golden file at path. It fails when a
// recorded struct's fields are not a prefix of its current ones; when
// structs only gained fields or were added, it asks for update, which
// then rewrites the file. what names the format in messages ("raft
// entries").
func Check(t *testing.T, path, what string, current map[string][]string, update bool) {
	t.Helper()
	recorded, err := read(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	broken, changed := Compare(recorded, current)
	if len(broken) > 0 {
		t.Fatalf("fields of structs in %s were removed, reordered, inserted, renamed or retyped: what an "+
			"older version encoded would decode into the wrong fields. Put them back and only append "+
			"(a Go-only type rename with the same fields may be edited into %s by hand):\n%s",
			what, path, strings.Join(broken, "\n"))
	}
	if !changed {
		return
	}
	if !update {
		t.Fatalf("structs in %s gained fields or types; record them by running this test with -update", what)
	}
	if err := write(path, current); err != nil {
		t.Fatal(err)
	}
}

// Compare lists the recorded structs whose fields are not a prefix of
// their current ones, and reports whether current differs from recorded
// at all.
func Compare(recorded, current map[string][]string) (broken []string, changed bool) {
	for name, was := range recorded {
		now, ok := current[name]
		if ok && !isPrefix(was, now) {
			broken = append(broken, fmt.Sprintf("%s: was\n\t%s\nnow\n\t%s", name,
				strings.Join(was, "\n\t"), strings.Join(now, "\n\t")))
		}
	}
	slices.Sort(broken)
	return broken, fmt.Sprint(recorded) != fmt.Sprint(current)
}

func isPrefix(prefix, list []string) bool {
	return len(prefix) <= len(list) && slices.Equal(prefix, list[:len(prefix)])
}

// The golden file: a struct's name on its own line, then its fields, one
// per line, indented by a tab.
func read(path string) (map[string][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return map[string][]string{}, err
	}
	out := map[string][]string{}
	var current string
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "\t"):
			out[current] = append(out[current], line[1:])
		default:
			current = line
			out[current] = []string{}
		}
	}
	return out, nil
}

func write(path string, structs map[string][]string) error {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(structs)) {
		b.WriteString(name + "\n")
		for _, f := range structs[name] {
			b.WriteString("\t" + f + "\n")
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
