package jobdiff

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
)

// differ carries the diff mode through the recursive walk.
type differ struct{ contextual bool }

// skipFields lists, per struct type, fields left out of the diff: state the
// server manages (it changes on every write and would make every plan look
// edited), identities already shown as the diff's Name, children diffed by
// dedicated code (groups, tasks), and network fields that describe a node's
// offer rather than the request (Nomad hides them too).
var skipFields = map[reflect.Type]map[string]bool{
	jobType: fieldSet("ID", "Status", "StatusDescription", "Stable", "Version", "SubmitTime",
		"CreateIndex", "ModifyIndex", "JobModifyIndex", "Dispatched", "Payload", "TaskGroups"),
	groupType: fieldSet("Name", "Tasks"),
	taskType:  fieldSet("Name"),
	reflect.TypeOf(structs.NetworkResource{}): fieldSet("Device", "CIDR", "IP"),
}

// blockSpec says how the elements of a slice of blocks are named and paired.
type blockSpec struct {
	// elem is the ObjectDiff name of one element: Nomad's singular block name.
	elem string
	// key is the identity field used to pair old and new elements so an edit
	// shows as "Edited"; without one, elements pair only when identical and
	// any change shows as a Deleted/Added pair (Nomad's hash matching).
	key string
	// skip hides fields that only the server sets for this slice.
	skip map[string]bool
}

// blockSpecs is keyed by the slice field's name; the same name means the
// same kind of block wherever it appears (Networks in groups and resources).
var blockSpecs = map[string]blockSpec{
	"Constraints":   {elem: "Constraint"},
	"Affinities":    {elem: "Affinity"},
	"Spreads":       {elem: "Spread"},
	"SpreadTarget":  {elem: "SpreadTarget"},
	"Networks":      {elem: "Network"},
	"Artifacts":     {elem: "Artifact"},
	"Services":      {elem: "Service", key: "Name"},
	"Checks":        {elem: "Check", key: "Name"},
	"Templates":     {elem: "Template", key: "DestPath"},
	"Devices":       {elem: "Device", key: "Name"},
	"Actions":       {elem: "Action", key: "Name"},
	"ReservedPorts": {elem: "Static Port", key: "Label"},
	// A dynamic port's Value is assigned by the scheduler, not the user.
	"DynamicPorts": {elem: "Dynamic Port", key: "Label", skip: fieldSet("Value")},
}

func specFor(field string) blockSpec {
	if s, ok := blockSpecs[field]; ok {
		return s
	}
	return blockSpec{elem: field}
}

// shape is how a struct field's type is rendered in a diff.
type shape int

const (
	shapeSkip      shape = iota
	shapePrimitive       // FieldDiff "Name"
	shapeMap             // map of primitives: FieldDiffs "Name[key]"
	shapeObject          // struct or *struct: one ObjectDiff
	shapeBlocks          // slice of structs: one ObjectDiff per element
	shapeSet             // slice of primitives: ObjectDiff of set members
	shapeTree            // map[string]any (task config): flattened ObjectDiff
)

func classify(t reflect.Type) shape {
	if t.Kind() == reflect.Pointer {
		switch {
		case isPrimitive(t.Elem()):
			return shapePrimitive
		case t.Elem().Kind() == reflect.Struct:
			return shapeObject
		}
		return shapeSkip
	}
	switch {
	case isPrimitive(t):
		return shapePrimitive
	case t.Kind() == reflect.Struct:
		return shapeObject
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		return classifyMap(t.Elem())
	case t.Kind() == reflect.Slice:
		return classifySlice(t.Elem())
	}
	return shapeSkip
}

func classifyMap(elem reflect.Type) shape {
	switch {
	case isPrimitive(elem):
		return shapeMap
	case elem.Kind() == reflect.Interface:
		return shapeTree
	}
	return shapeSkip
}

func classifySlice(elem reflect.Type) shape {
	if elem.Kind() == reflect.Pointer {
		elem = elem.Elem()
	}
	switch {
	case elem.Kind() == reflect.Uint8: // raw bytes (payloads) are not diffable text
		return shapeSkip
	case isPrimitive(elem):
		return shapeSet
	case elem.Kind() == reflect.Struct:
		return shapeBlocks
	}
	return shapeSkip
}

func isPrimitive(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// format renders a primitive as Nomad does: decimal integers (durations in
// nanoseconds), "true"/"false", strings verbatim. ok is false for an absent
// value (nil pointer), which diffs like an empty string.
func format(v reflect.Value) (s string, ok bool) {
	v = deref(v)
	if !v.IsValid() {
		return "", false
	}
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true
	case reflect.String:
		return v.String(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), true
	case reflect.Float32, reflect.Float64:
		// %v prints whole floats without a fraction, so a JSON-decoded 8080
		// reads "8080" like an HCL-decoded int would.
		return fmt.Sprint(v.Float()), true
	}
	return "", false
}

// deref follows pointers and interfaces; nil yields the invalid Value that
// stands for "absent".
func deref(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// fieldOf returns a struct's field, absent when the struct is.
func fieldOf(v reflect.Value, name string) reflect.Value {
	if !v.IsValid() {
		return v
	}
	return v.FieldByName(name)
}

// eachField calls fn for the exported, non-skipped fields of t.
func eachField(t reflect.Type, skip map[string]bool, fn func(f reflect.StructField)) {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.IsExported() && !skip[f.Name] {
			fn(f)
		}
	}
}

// flatPrimitives maps the primitive fields of struct v (and its primitive
// maps, as "Name[key]") to their rendered values.
func flatPrimitives(v reflect.Value, skip map[string]bool) map[string]string {
	out := map[string]string{}
	if !v.IsValid() {
		return out
	}
	eachField(v.Type(), skip, func(f reflect.StructField) {
		fv := v.FieldByIndex(f.Index)
		switch classify(f.Type) {
		case shapePrimitive:
			if s, ok := format(fv); ok {
				out[f.Name] = s
			}
		case shapeMap:
			iter := fv.MapRange()
			for iter.Next() {
				s, _ := format(iter.Value())
				out[f.Name+"["+iter.Key().String()+"]"] = s
			}
		}
	})
	return out
}

// objects diffs the nested blocks of struct type t, sorted by name.
func (d differ) objects(old, new reflect.Value, t reflect.Type, skip map[string]bool) []*api.ObjectDiff {
	var out []*api.ObjectDiff
	add := func(o *api.ObjectDiff) {
		if o != nil {
			out = append(out, o)
		}
	}
	eachField(t, skip, func(f reflect.StructField) {
		ov, nv := fieldOf(old, f.Name), fieldOf(new, f.Name)
		switch classify(f.Type) {
		case shapeObject:
			add(d.object(f.Name, present(ov), present(nv), nil))
		case shapeBlocks:
			for _, o := range d.blocks(specFor(f.Name), ov, nv) {
				add(o)
			}
		case shapeSet:
			add(d.set(f.Name, ov, nv))
		case shapeTree:
			add(d.tree(f.Name, ov, nv))
		}
	})
	sortObjects(out)
	return out
}

// present derefs a block; a zero value-typed struct (e.g. a job without an
// update block) counts as absent so new jobs don't list empty blocks.
func present(v reflect.Value) reflect.Value {
	if v.IsValid() && v.Kind() == reflect.Struct && v.IsZero() {
		return reflect.Value{}
	}
	return deref(v)
}

// object diffs one block. It returns nil when the block is unchanged or
// absent on both sides, as Nomad leaves unchanged blocks out.
func (d differ) object(name string, old, new reflect.Value, extraSkip map[string]bool) *api.ObjectDiff {
	if !old.IsValid() && !new.IsValid() {
		return nil
	}
	t := typeOf(old, new)
	skip := union(skipFields[t], extraSkip)
	od := &api.ObjectDiff{Name: name, Type: presence(old.IsValid(), new.IsValid())}
	od.Fields = fieldDiffs(flatPrimitives(old, skip), flatPrimitives(new, skip), d.contextual)
	od.Objects = d.objects(old, new, t, skip)
	if od.Type == "" {
		if !changedFields(od.Fields) && !changedObjects(od.Objects) {
			return nil
		}
		od.Type = TypeEdited
	}
	return od
}

// typeOf is the struct type of whichever side is present.
func typeOf(old, new reflect.Value) reflect.Type {
	if old.IsValid() {
		return old.Type()
	}
	return new.Type()
}

// blocks pairs the elements of two slices of blocks (by spec.key, else by
// content) and diffs each pair; unpaired elements are Deleted or Added.
// Duplicate keys pair up in order, so the result is deterministic.
func (d differ) blocks(spec blockSpec, old, new reflect.Value) []*api.ObjectDiff {
	olds, news := elems(old), elems(new)
	keyOf := func(v reflect.Value) string {
		if spec.key != "" {
			s, _ := format(v.FieldByName(spec.key))
			return s
		}
		return fingerprint(v, spec.skip)
	}
	waiting := map[string][]int{}
	for j, n := range news {
		k := keyOf(n)
		waiting[k] = append(waiting[k], j)
	}
	paired := make([]bool, len(news))
	var out []*api.ObjectDiff
	for _, o := range olds {
		k := keyOf(o)
		match := reflect.Value{}
		if q := waiting[k]; len(q) > 0 {
			waiting[k], paired[q[0]], match = q[1:], true, news[q[0]]
		}
		out = append(out, d.object(spec.elem, o, match, spec.skip))
	}
	for j, n := range news {
		if !paired[j] {
			out = append(out, d.object(spec.elem, reflect.Value{}, n, spec.skip))
		}
	}
	return out
}

// elems returns the non-nil elements of a slice, dereferenced.
func elems(v reflect.Value) []reflect.Value {
	if !v.IsValid() {
		return nil
	}
	var out []reflect.Value
	for i := 0; i < v.Len(); i++ {
		if e := deref(v.Index(i)); e.IsValid() {
			out = append(out, e)
		}
	}
	return out
}

// fingerprint is a canonical rendering of a whole block, used to pair
// blocks that have no identity field.
func fingerprint(v reflect.Value, skip map[string]bool) string {
	flat := map[string]string{}
	flattenTree("", v, skip, flat)
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%q=%q;", k, flat[k])
	}
	return b.String()
}

// set diffs a slice of primitives as a set (order and duplicates don't
// matter): an ObjectDiff named after the field whose FieldDiffs, all with
// the same name, are the members added, removed or (contextual) kept. An
// unchanged set is nil, or a "None" object when contextual.
func (d differ) set(name string, old, new reflect.Value) *api.ObjectDiff {
	os, ns := members(old), members(new)
	od := &api.ObjectDiff{Name: name, Type: TypeEdited}
	changed := false
	for _, m := range unionNames(os, ns) {
		switch {
		case os[m] && ns[m]:
			if d.contextual {
				od.Fields = append(od.Fields, &api.FieldDiff{Type: TypeNone, Name: name, Old: m, New: m})
			}
		case ns[m]:
			changed = true
			od.Fields = append(od.Fields, &api.FieldDiff{Type: TypeAdded, Name: name, New: m})
		default:
			changed = true
			od.Fields = append(od.Fields, &api.FieldDiff{Type: TypeDeleted, Name: name, Old: m})
		}
	}
	if !changed {
		// Inside an edited block a contextual diff shows an unchanged,
		// non-empty set as a "None" object; level() drops it again at
		// the job, group and task themselves, as Nomad does.
		if d.contextual && len(od.Fields) > 0 {
			od.Type = TypeNone
			return od
		}
		return nil
	}
	if len(os) == 0 {
		od.Type = TypeAdded
	} else if len(ns) == 0 {
		od.Type = TypeDeleted
	}
	return od
}

func members(v reflect.Value) map[string]bool {
	out := map[string]bool{}
	for _, e := range elems(v) {
		if s, ok := format(e); ok {
			out[s] = true
		}
	}
	return out
}

// tree diffs free-form driver config (map[string]any) by flattening nested
// maps and lists into Nomad's key syntax: "image", "args[0]",
// "port_map[0][http]", "auth[username]".
func (d differ) tree(name string, old, new reflect.Value) *api.ObjectDiff {
	of, nf := map[string]string{}, map[string]string{}
	flattenTree("", old, nil, of)
	flattenTree("", new, nil, nf)
	fields := fieldDiffs(of, nf, d.contextual)
	if !changedFields(fields) {
		return nil
	}
	od := &api.ObjectDiff{Name: name, Type: TypeEdited, Fields: fields}
	if len(of) == 0 {
		od.Type = TypeAdded
	} else if len(nf) == 0 {
		od.Type = TypeDeleted
	}
	return od
}

// flattenTree writes every leaf under v into out, keyed by path. Map keys
// and list indexes are bracketed, struct fields dotted.
func flattenTree(prefix string, v reflect.Value, skip map[string]bool, out map[string]string) {
	v = deref(v)
	if !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			flattenTree(subKey(prefix, fmt.Sprint(iter.Key().Interface())), iter.Value(), nil, out)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			flattenTree(fmt.Sprintf("%s[%d]", prefix, i), v.Index(i), nil, out)
		}
	case reflect.Struct:
		eachField(v.Type(), union(skipFields[v.Type()], skip), func(f reflect.StructField) {
			flattenTree(subField(prefix, f.Name), v.FieldByIndex(f.Index), nil, out)
		})
	default:
		if s, ok := format(v); ok {
			out[prefix] = s
		}
	}
}

func subKey(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "[" + key + "]"
}

func subField(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// fieldDiffs compares two flattened views, sorted by name. Unchanged fields
// appear (Type "None") only when contextual.
func fieldDiffs(old, new map[string]string, contextual bool) []*api.FieldDiff {
	var out []*api.FieldDiff
	for _, name := range unionNames(old, new) {
		if f := fieldDiff(name, old[name], new[name], contextual); f != nil {
			out = append(out, f)
		}
	}
	return out
}

// fieldDiff classifies one value change; an empty string means unset, so
// "" -> "x" is Added and "x" -> "" is Deleted, as in Nomad.
func fieldDiff(name, old, new string, contextual bool) *api.FieldDiff {
	f := &api.FieldDiff{Name: name, Old: old, New: new}
	switch {
	case old == new:
		if !contextual {
			return nil
		}
		f.Type = TypeNone
	case old == "":
		f.Type = TypeAdded
	case new == "":
		f.Type = TypeDeleted
	default:
		f.Type = TypeEdited
	}
	return f
}

// typeRank orders same-named objects as Nomad does: edits first, then
// additions, deletions, unchanged.
var typeRank = map[string]int{TypeEdited: 0, TypeAdded: 1, TypeDeleted: 2, TypeNone: 3}

// sortObjects orders by name, then type, then content, so two blocks of
// the same kind (two constraints) always come out in the same order.
func sortObjects(os []*api.ObjectDiff) {
	sort.SliceStable(os, func(i, j int) bool {
		a, b := os[i], os[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if typeRank[a.Type] != typeRank[b.Type] {
			return typeRank[a.Type] < typeRank[b.Type]
		}
		return objectKey(a) < objectKey(b)
	})
}

func objectKey(o *api.ObjectDiff) string {
	var b strings.Builder
	for _, f := range o.Fields {
		fmt.Fprintf(&b, "%q:%q>%q;", f.Name, f.Old, f.New)
	}
	for _, c := range o.Objects {
		fmt.Fprintf(&b, "{%q:%s}", c.Name, objectKey(c))
	}
	return b.String()
}

func fieldSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// union merges skip sets without mutating the shared tables.
func union(a, b map[string]bool) map[string]bool {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	m := make(map[string]bool, len(a)+len(b))
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}
