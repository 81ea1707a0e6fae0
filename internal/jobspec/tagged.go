package jobspec

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Long, flat blocks (template, check) are decoded from the API struct's own
// `hcl:"name,optional"` tags, as Nomad's parser does: the tag names the
// attribute and the field's Go type picks the reader, so the accepted
// attributes and the fields they fill are one list and cannot drift apart.
// Nested blocks and attributes with a custom form stay hand-written.

// taggedField is one optional attribute of an API struct.
type taggedField struct {
	name  string // the HCL attribute name
	index int    // the struct field it fills
}

// taggedFields lists T's optional attributes in field order.
func taggedFields[T any]() []taggedField {
	st := reflect.TypeFor[T]()
	var out []taggedField
	for i := range st.NumField() {
		name, kind, _ := strings.Cut(st.Field(i).Tag.Get("hcl"), ",")
		if kind == "optional" {
			out = append(out, taggedField{name: name, index: i})
		}
	}
	return out
}

// taggedSchema is the body schema of struct T: its optional attributes and
// the nested blocks given (in schema's "name" or "name:label" form). It
// decodes an empty body once, so that a field type no reader handles
// panics at package init, in every test, rather than being dropped.
func taggedSchema[T any](blocks ...string) *hcl.BodySchema {
	var names []string
	for _, f := range taggedFields[T]() {
		names = append(names, f.name)
	}
	readTagged(&block{d: &decoder{}}, new(T))
	return schema(names, blocks...)
}

// readTagged fills dst's optional attributes from b.
func readTagged[T any](b *block, dst *T) {
	v := reflect.ValueOf(dst).Elem()
	for _, f := range taggedFields[T]() {
		b.readInto(f.name, v.Field(f.index).Addr().Interface())
	}
}

// readInto reads attribute name into the field dst points to, with the
// reader for the field's type.
func (b *block) readInto(name string, dst any) {
	switch p := dst.(type) {
	case *string:
		b.str(name, p)
	case **string:
		b.strPtr(name, p)
	case *bool:
		b.boolean(name, p)
	case **bool:
		b.boolPtr(name, p)
	case *int:
		b.intVal(name, p)
	case **int:
		b.intPtr(name, p)
	case *time.Duration:
		b.dur(name, p)
	case **time.Duration:
		b.durPtr(name, p)
	case *[]string:
		b.strList(name, p)
	default:
		panic(fmt.Sprintf("jobspec: no reader for attribute %q of type %T", name, dst))
	}
}
