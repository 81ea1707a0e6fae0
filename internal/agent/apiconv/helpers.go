package apiconv

// deref returns the value p points at, or T's zero value when p is nil: the
// api marks "unset" with nil pointers, structs with zero values.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// derefOr is deref with an explicit value for nil, for the few settings
// whose zero value is a legal choice different from the default.
func derefOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// convertSlice maps every element. A nil input stays nil and an empty one
// stays empty so that round trips are reflect.DeepEqual.
func convertSlice[A, B any](in []A, f func(A) B) []B {
	if in == nil {
		return nil
	}
	out := make([]B, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// convertPtrs maps a slice of pointers, dropping nil elements: a JSON
// `[null]` must not reach code that assumes every element is set.
func convertPtrs[A, B any](in []*A, f func(*A) *B) []*B {
	if in == nil {
		return nil
	}
	out := make([]*B, 0, len(in))
	for _, v := range in {
		if v != nil {
			out = append(out, f(v))
		}
	}
	return out
}

// convertMap maps every value, dropping nil pointer values for the same
// reason as convertPtrs; f must return nil only for a nil input.
func convertMap[K comparable, A, B any](in map[K]*A, f func(*A) *B) map[K]*B {
	if in == nil {
		return nil
	}
	out := make(map[K]*B, len(in))
	for k, v := range in {
		if v != nil {
			out[k] = f(v)
		}
	}
	return out
}

// copyConfig deep-copies a driver config or scaling policy. These are
// free-form JSON trees; sharing them would let a handler's later mutation
// reach an object that is already stored (and therefore immutable).
func copyConfig(in map[string]any) map[string]any {
	if in == nil {
		return nil
	}
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = copyAny(v)
	}
	return out
}

// copyAny copies the container types JSON, HCL and msgpack decoding
// produce; anything else is a scalar and is shared as is.
func copyAny(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return copyConfig(t)
	case []map[string]any:
		return convertSlice(t, copyConfig)
	case []any:
		return convertSlice(t, copyAny)
	case []string:
		return convertSlice(t, func(s string) string { return s })
	}
	return v
}
