package fields

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

// State is what Drover does with a field.
type State int

// The three states of a field.
const (
	Honoured State = iota + 1
	Refused
	Warned
)

func (s State) String() string {
	switch s {
	case Honoured:
		return "honoured"
	case Refused:
		return "refused"
	case Warned:
		return "warned"
	}
	return "unknown"
}

// Row is one field's state.
type Row struct {
	Key   string // "Type.Field" with the api type's name: "Template.LeftDelim"
	State State
	// Proof names the test that shows an honoured field working (a Go test
	// function name, found by TestHonouredRowsNameATest).
	Proof string
	// Message says, for a refused field, why and what to do instead; for a
	// warned one, what is ignored and why that is safe; for an honoured one
	// with Allow, why the other values are refused.
	Message string
	// Allow, when set on an honoured row, lists the only values Drover acts
	// on (as fmt.Sprint prints the dereferenced value).
	Allow []string
	// Zero, with Allow, is the value an unset field stands for (Nomad's
	// default), checked against Allow like a value sent.
	Zero string
	// Note is an optional remark for the reference document.
	Note string
}

// Finding is one refused or warned field a job sets.
type Finding struct {
	Path    string // TaskGroups[0].Services[1].Connect
	Row     *Row
	Message string // Row.Message, or for a refused value what value was refused
	// Field is the field's address (0 when not addressable) and Blocks
	// the addresses of the structs holding it, innermost first: the HCL
	// parser maps them back to file:line:col. (A struct and its first
	// field share an address, hence two lists.)
	Field  uintptr
	Blocks []uintptr
	// Target is the address of the struct a refused or warned block
	// field holds (its first element for a list of blocks), 0 otherwise.
	Target uintptr
}

func (f Finding) String() string { return f.Path + ": " + f.Message }

var byKey = indexRows(jobRows, func(r *Row) string { return r.Key }, "row")

// indexRows maps each row's key to it; a key twice is a bug in the table.
func indexRows[R any](rows []R, key func(*R) string, what string) map[string]*R {
	m := make(map[string]*R, len(rows))
	for i := range rows {
		r := &rows[i]
		if _, dup := m[key(r)]; dup {
			panic("fields: duplicate " + what + " " + key(r))
		}
		m[key(r)] = r
	}
	return m
}

// sortedRows returns a copy of rows sorted by key.
func sortedRows[R any](rows []R, key func(*R) string) []R {
	out := slices.Clone(rows)
	sort.Slice(out, func(i, j int) bool { return key(&out[i]) < key(&out[j]) })
	return out
}

// Rows returns the table, sorted by key.
func Rows() []Row { return sortedRows(jobRows, func(r *Row) string { return r.Key }) }

// Lookup returns the row for "Type.Field", or nil.
func Lookup(key string) *Row { return byKey[key] }

var timeType = reflect.TypeOf(time.Time{})

// Check returns the refused and the warned fields job sets, in field
// order. A field with no row (a client newer than the table, which
// TestEveryFieldHasARow would catch) is refused: nothing is dropped.
func Check(job *api.Job) (refused, warned []Finding) {
	if job == nil {
		return nil, nil
	}
	w := &walker{}
	v := reflect.ValueOf(job).Elem()
	w.walk("", v, []uintptr{v.Addr().Pointer()})
	return w.refused, w.warned
}

type walker struct{ refused, warned []Finding }

func (w *walker) walk(path string, v reflect.Value, parents []uintptr) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		key := t.Name() + "." + f.Name
		row := byKey[key]
		p := f.Name
		if path != "" {
			p = path + "." + f.Name
		}
		if unset(fv) {
			if row != nil && row.Zero != "" && !slices.Contains(row.Allow, row.Zero) {
				w.refused = append(w.refused, Finding{Path: p, Row: row, Blocks: parents,
					Message: fmt.Sprintf("unset means %q: %s", row.Zero, row.Message)})
			}
			continue
		}
		var field uintptr
		if fv.CanAddr() {
			field = fv.Addr().Pointer()
		}
		switch {
		case row == nil:
			w.refused = append(w.refused, Finding{Path: p, Field: field, Blocks: parents, Row: &Row{Key: key, State: Refused},
				Message: "Drover does not know this field (" + key + "): it is newer than Drover's table of job fields, so it is refused rather than ignored"})
			continue
		case row.State == Refused:
			w.refused = append(w.refused, Finding{Path: p, Row: row, Message: row.Message, Field: field, Blocks: parents, Target: target(fv)})
			continue
		case row.State == Warned:
			w.warned = append(w.warned, Finding{Path: p, Row: row, Message: row.Message, Field: field, Blocks: parents, Target: target(fv)})
			continue
		case row.Allow != nil:
			if s := fmt.Sprint(deref(fv).Interface()); !slices.Contains(row.Allow, s) {
				w.refused = append(w.refused, Finding{Path: p, Row: row, Field: field, Blocks: parents,
					Message: fmt.Sprintf("%q is not supported: %s", s, row.Message)})
			}
			continue
		}
		w.descend(p, fv, parents)
	}
}

// descend walks into the structs a set field holds.
func (w *walker) descend(path string, v reflect.Value, addrs []uintptr) {
	v = deref(v)
	switch {
	case v.Kind() == reflect.Struct && v.Type() != timeType:
		if v.CanAddr() {
			addrs = append([]uintptr{v.Addr().Pointer()}, addrs...)
		}
		w.walk(path, v, addrs)
	case v.Kind() == reflect.Slice || v.Kind() == reflect.Array:
		for i := range v.Len() {
			w.descend(fmt.Sprintf("%s[%d]", path, i), v.Index(i), addrs)
		}
	case v.Kind() == reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			w.descend(fmt.Sprintf("%s[%v]", path, k), v.MapIndex(k), addrs)
		}
	}
}

// target is the address of the struct v holds, through a pointer or as
// the first element of a list, or 0.
func target(v reflect.Value) uintptr {
	v = deref(v)
	if (v.Kind() == reflect.Slice || v.Kind() == reflect.Array) && v.Len() > 0 {
		v = deref(v.Index(0))
	}
	if v.Kind() == reflect.Struct && v.CanAddr() {
		return v.Addr().Pointer()
	}
	return 0
}

func deref(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return v
		}
		v = v.Elem()
	}
	return v
}

// unset is true for a nil pointer, an empty slice or map, and a zero value
// (through pointers): `sticky = false` sets nothing Drover would ignore.
func unset(v reflect.Value) bool {
	v = deref(v)
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	}
	return v.IsZero()
}

// Bullets formats findings one per line as "* path: message".
func Bullets(fs []Finding) string {
	lines := make([]string, 0, len(fs))
	for _, f := range fs {
		lines = append(lines, "* "+f.String())
	}
	return strings.Join(lines, "\n")
}

// Types lists every api struct type reachable from api.Job through fields
// that are not refused or warned, with the path of its first occurrence:
// the tree the table must cover.
func Types() []TypeAt {
	return reachableTypes(reflect.TypeOf(api.Job{}), func(key string) bool {
		r := byKey[key]
		return r != nil && r.State != Honoured
	})
}

// reachableTypes lists every struct type reachable from root through
// exported fields, depth first, with the path of its first occurrence;
// skip("Type.Field") prunes a field and what lies beneath it.
func reachableTypes(root reflect.Type, skip func(key string) bool) []TypeAt {
	seen := map[reflect.Type]bool{}
	var out []TypeAt
	var visit func(path string, t reflect.Type)
	visit = func(path string, t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		out = append(out, TypeAt{Type: t, Path: path})
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || skip(t.Name()+"."+f.Name) {
				continue
			}
			if b := baseType(f.Type); b.Kind() == reflect.Struct && b != timeType {
				visit(strings.TrimPrefix(path+"."+f.Name, "."), b)
			}
		}
	}
	visit("", root)
	return out
}

// TypeAt is a struct type of the job tree and where it first appears.
type TypeAt struct {
	Type reflect.Type
	Path string
}

func baseType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	return t
}
