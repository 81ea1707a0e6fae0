package jobspec

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// read evaluates attribute name as ty and converts it to a Go value with
// conv, reporting conversion errors at the attribute's expression.
func read[T any](b *block, name string, ty cty.Type, conv func(cty.Value) (T, error)) (T, bool) {
	var zero T
	v, attr, ok := b.value(name, ty)
	if !ok {
		return zero, false
	}
	out, err := conv(v)
	if err != nil {
		b.errAt(attr, "Invalid value", "Inappropriate value for attribute %q: %s.", name, err)
		return zero, false
	}
	return out, true
}

func ctyString(v cty.Value) (string, error) { return v.AsString(), nil }
func ctyBool(v cty.Value) (bool, error)     { return v.True(), nil }

func ctyStrings(v cty.Value) ([]string, error) {
	out := make([]string, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() {
			return nil, fmt.Errorf("null element in list")
		}
		out = append(out, e.AsString())
	}
	return out, nil
}

func ctyStringMap(v cty.Value) (map[string]string, error) {
	out := make(map[string]string, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if e.IsNull() {
			return nil, fmt.Errorf("null value for key %q", k.AsString())
		}
		out[k.AsString()] = e.AsString()
	}
	return out, nil
}

// whole returns a number converter accepting integers in [lo, hi]: HCL
// numbers are arbitrary-precision, Go fields are not.
func whole(lo, hi int64) func(cty.Value) (int64, error) {
	return func(v cty.Value) (int64, error) {
		f := v.AsBigFloat()
		if !f.IsInt() {
			return 0, fmt.Errorf("a whole number is required, got %s", f.Text('g', -1))
		}
		n, acc := f.Int64()
		if acc != big.Exact || n < lo || n > hi {
			return 0, fmt.Errorf("%s is out of range [%d, %d]", f.Text('g', -1), lo, hi)
		}
		return n, nil
	}
}

func (b *block) str(name string, dst *string) {
	if v, ok := read(b, name, cty.String, ctyString); ok {
		*dst = v
		b.mark(dst, name)
	}
}

func (b *block) strPtr(name string, dst **string) {
	if v, ok := read(b, name, cty.String, ctyString); ok {
		*dst = &v
		b.mark(dst, name)
	}
}

func (b *block) boolean(name string, dst *bool) {
	if v, ok := read(b, name, cty.Bool, ctyBool); ok {
		*dst = v
		b.mark(dst, name)
	}
}

func (b *block) boolPtr(name string, dst **bool) {
	if v, ok := read(b, name, cty.Bool, ctyBool); ok {
		*dst = &v
		b.mark(dst, name)
	}
}

func (b *block) strList(name string, dst *[]string) {
	if v, ok := read(b, name, cty.List(cty.String), ctyStrings); ok {
		*dst = v
		b.mark(dst, name)
	}
}

func (b *block) strMap(name string, dst *map[string]string) {
	if v, ok := read(b, name, cty.Map(cty.String), ctyStringMap); ok {
		*dst = v
		b.mark(dst, name)
	}
}

// integer reads a whole number within [lo, hi].
func (b *block) integer(name string, lo, hi int64) (int64, bool) {
	return read(b, name, cty.Number, whole(lo, hi))
}

func (b *block) intVal(name string, dst *int) {
	if n, ok := b.integer(name, math.MinInt, math.MaxInt); ok {
		*dst = int(n)
		b.mark(dst, name)
	}
}

func (b *block) intPtr(name string, dst **int) {
	if n, ok := b.integer(name, math.MinInt, math.MaxInt); ok {
		v := int(n)
		*dst = &v
		b.mark(dst, name)
	}
}

func (b *block) int64Ptr(name string, dst **int64) {
	if n, ok := b.integer(name, math.MinInt64, math.MaxInt64); ok {
		*dst = &n
		b.mark(dst, name)
	}
}

func (b *block) uint64Ptr(name string, dst **uint64) {
	if n, ok := b.integer(name, 0, math.MaxInt64); ok {
		v := uint64(n)
		*dst = &v
		b.mark(dst, name)
	}
}

func (b *block) int8Ptr(name string, dst **int8) {
	if n, ok := b.integer(name, math.MinInt8, math.MaxInt8); ok {
		v := int8(n)
		*dst = &v
		b.mark(dst, name)
	}
}

func (b *block) uint8Val(name string, dst *uint8) {
	if n, ok := b.integer(name, 0, math.MaxUint8); ok {
		*dst = uint8(n)
		b.mark(dst, name)
	}
}

func (b *block) dur(name string, dst *time.Duration) {
	if v, ok := read(b, name, cty.DynamicPseudoType, toDuration); ok {
		*dst = v
		b.mark(dst, name)
	}
}

func (b *block) durPtr(name string, dst **time.Duration) {
	if v, ok := read(b, name, cty.DynamicPseudoType, toDuration); ok {
		*dst = &v
		b.mark(dst, name)
	}
}
