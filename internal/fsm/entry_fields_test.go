package fsm

import (
	"bytes"
	"encoding"
	"flag"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-msgpack/v2/codec"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

var updateFields = flag.Bool("update", false, "record appended entry fields in testdata/entry_fields.golden")

const entryFieldsGolden = "testdata/entry_fields.golden"

// Raft entries encode structs as arrays of their fields (structs'
// entryHandle), so the position of each field of every struct an entry
// can hold is part of the log's format: a server must still apply the
// entries an older one wrote, and an older one the entries a newer one
// writes. The golden file records each such struct's fields in order;
// the current fields must extend them. Run with -update after appending
// fields or adding entry types; it refuses anything else.
func TestEntryFields_OnlyEverAppended(t *testing.T) {
	current := entryStructs(newTestFSM(t))
	recorded, err := readEntryFields(entryFieldsGolden)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var broken []string
	for name, was := range recorded {
		now, ok := current[name]
		if ok && !isPrefix(was, now) {
			broken = append(broken, fmt.Sprintf("%s: was\n\t%s\nnow\n\t%s", name,
				strings.Join(was, "\n\t"), strings.Join(now, "\n\t")))
		}
	}
	slices.Sort(broken)
	if len(broken) > 0 {
		t.Fatalf("fields of structs in raft entries were removed, reordered, inserted, renamed or retyped; "+
			"entries already in logs would decode into the wrong fields. Put them back and only append "+
			"(a Go-only type rename with the same fields may be edited into %s by hand):\n%s",
			entryFieldsGolden, strings.Join(broken, "\n"))
	}
	if fmt.Sprint(recorded) == fmt.Sprint(current) {
		return
	}
	if !*updateFields {
		t.Fatalf("structs in raft entries gained fields or types; record them: go test ./internal/fsm -run TestEntryFields -update")
	}
	if err := writeEntryFields(entryFieldsGolden, current); err != nil {
		t.Fatal(err)
	}
}

// The field list of a struct is how the msgpack codec sees it.
func TestWireFields_FollowTheCodecsRules(t *testing.T) {
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
	got := wireFields(reflect.TypeFor[outer]())
	want := []string{"A string", "X int", "Y int", "Named fsm.inner", "When time.Time", "B []*fsm.inner"}
	if !slices.Equal(got, want) {
		t.Fatalf("fields %q, want %q", got, want)
	}
}

// entryStructs maps every struct type reachable from an entry payload to
// its fields, each "Name type", in encoding order.
func entryStructs(f *FSM) map[string][]string {
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
			out[t.String()] = wireFields(t)
			for _, field := range visibleFields(t) {
				visit(field.Type)
			}
		}
	}
	for _, a := range f.appliers {
		visit(a.payload)
	}
	return out
}

// opaque types encode as themselves, not as their fields.
func opaque(t reflect.Type) bool {
	marshaler := reflect.TypeFor[encoding.BinaryMarshaler]()
	return t == reflect.TypeFor[time.Time]() || t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler)
}

// wireFields are t's fields as the codec encodes them: exported, not
// tagged "-" (codec, else json), embedded structs without a tag inlined
// in place.
func wireFields(t reflect.Type) []string {
	var out []string
	for _, f := range visibleFields(t) {
		out = append(out, f.Name+" "+f.Type.String())
	}
	return out
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

func isPrefix(prefix, list []string) bool {
	return len(prefix) <= len(list) && slices.Equal(prefix, list[:len(prefix)])
}

// The golden file: a struct's name on its own line, then its fields, one
// per line, indented by a tab.
func readEntryFields(path string) (map[string][]string, error) {
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

func writeEntryFields(path string, structs map[string][]string) error {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(structs)) {
		b.WriteString(name + "\n")
		for _, f := range structs[name] {
			b.WriteString("\t" + f + "\n")
		}
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// Entries written before structs traveled as arrays (their fields keyed
// by name) apply as they did: a server replays its log's tail after an
// upgrade, and every replica must reach the same state whichever form
// each entry has.
func TestFSM_EntriesWithFieldNamesApplyAsArraysDo(t *testing.T) {
	entry := &structs.JobRegisterRequest{Job: mock.Job("web")}
	asArrays, _ := structs.Encode(structs.JobRegisterRequestType, entry)
	withNames, _ := encodeWithFieldNames(structs.JobRegisterRequestType, entry)
	if len(withNames) <= len(asArrays) {
		t.Fatalf("an entry with field names has %d bytes, as arrays %d: Encode no longer writes arrays", len(withNames), len(asArrays))
	}

	arrays := newTestFSM(t)
	populate(t, arrays)

	encodeEntry = encodeWithFieldNames
	t.Cleanup(func() { encodeEntry = structs.Encode })
	names := newTestFSM(t)
	populate(t, names)
	assertSameState(t, arrays.State(), names.State())
}

func encodeWithFieldNames(mt structs.MessageType, msg any) ([]byte, error) {
	buf := bytes.NewBuffer([]byte{byte(mt)})
	err := codec.NewEncoder(buf, structs.MsgpackHandle).Encode(msg)
	return buf.Bytes(), err
}
