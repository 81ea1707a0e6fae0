package apiconv

import (
	"reflect"
	"sync"
	"time"
)

// Most api types mirror a structs type field for field: the same name with
// the same plain type, or with the api's optional pointer to it. byName
// copies those fields, so that a converter spells out only the fields that
// change shape: nested types, containers (which must be cloned), renamed
// fields and presence defaults. A field a converter forgets is caught by
// the fixture tests, which require every output field to be set. The
// other way round, a server-only field (a token such as an eval's
// LeaderACL) must not share its name with an api field, or it is output.

// byName returns a new D whose fields are copied from the same-named
// fields of src where the two are one plain type T (a scalar, a duration or
// a time) as T↔T, T→*T (a fresh pointer), *T→T (nil is T's zero) or *T→*T
// (a copy, so the result shares nothing with src). It returns nil for nil.
func byName[D, S any](src *S) *D {
	if src == nil {
		return nil
	}
	dst := new(D)
	dv, sv := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	for _, f := range planFor(dv.Type(), sv.Type()) {
		f.copy(dv.Field(f.dst), sv.Field(f.src))
	}
	return dst
}

// fieldCopy is one field byName copies.
type fieldCopy struct {
	dst, src int
	copy     func(dst, src reflect.Value)
}

// plans caches each type pair's field copies: converters run per object
// in list responses, and the reflection walk is the same every time.
var plans sync.Map // [2]reflect.Type → []fieldCopy

func planFor(dt, st reflect.Type) []fieldCopy {
	key := [2]reflect.Type{dt, st}
	if p, ok := plans.Load(key); ok {
		return p.([]fieldCopy)
	}
	var plan []fieldCopy
	for i := range dt.NumField() {
		df := dt.Field(i)
		sf, ok := st.FieldByName(df.Name)
		if !df.IsExported() || !ok || len(sf.Index) != 1 {
			continue
		}
		if copy := copierFor(df.Type, sf.Type); copy != nil {
			plan = append(plan, fieldCopy{dst: i, src: sf.Index[0], copy: copy})
		}
	}
	plans.Store(key, plan)
	return plan
}

// copierFor returns how to copy a field of type st into one of type dt,
// or nil when the two are not a plain type and its optional pointer.
func copierFor(dt, st reflect.Type) func(dst, src reflect.Value) {
	switch {
	case dt == st && plain(dt):
		return func(d, s reflect.Value) { d.Set(s) }
	case dt.Kind() == reflect.Pointer && dt.Elem() == st && plain(st):
		return func(d, s reflect.Value) { d.Set(pointerTo(s)) }
	case st.Kind() == reflect.Pointer && st.Elem() == dt && plain(dt):
		return func(d, s reflect.Value) {
			if !s.IsNil() {
				d.Set(s.Elem())
			}
		}
	case dt == st && dt.Kind() == reflect.Pointer && plain(dt.Elem()):
		return func(d, s reflect.Value) {
			if !s.IsNil() {
				d.Set(pointerTo(s.Elem()))
			}
		}
	}
	return nil
}

// pointerTo returns a pointer to a fresh copy of v.
func pointerTo(v reflect.Value) reflect.Value {
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p
}

var timeType = reflect.TypeFor[time.Time]()

// plain reports whether t is copied by value with nothing shared: bools,
// numbers (durations and other named numbers included), strings and
// time.Time.
func plain(t reflect.Type) bool {
	switch k := t.Kind(); {
	case k == reflect.Bool, k == reflect.String:
		return true
	case k >= reflect.Int && k <= reflect.Float64: // the ints, uints and floats
		return k != reflect.Uintptr
	}
	return t == timeType
}
