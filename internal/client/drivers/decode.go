package drivers

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"
)

// ConfigError is a config problem with one field.
type ConfigError struct {
	Field  string
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("config field %q: %s", e.Field, e.Reason)
}

// Reasons carried by ConfigError.
const (
	ReasonUnknownField = "unknown field"
	ReasonMissing      = "required field is missing"
	ReasonEmpty        = "required field must not be empty"
)

var durationType = reflect.TypeOf(time.Duration(0))

// Decode copies cfg into the struct that out points to. Fields are tagged
// `cfg:"name"` or `cfg:"name,required"`. Values come from HCL or JSON, so
// it accepts the shapes those produce ([]any for lists, float64 or
// json.Number for numbers, a list of maps for a repeated block) but never
// converts between kinds: a string where a list belongs is an error. Every
// problem is reported, in a stable order.
func Decode(cfg map[string]any, out any) error {
	rv := reflect.ValueOf(out).Elem()
	rt := rv.Type()
	known := map[string]bool{}
	var errs []error
	for i := 0; i < rt.NumField(); i++ {
		name, required := parseTag(rt.Field(i).Tag.Get("cfg"))
		if name == "" {
			continue
		}
		known[name] = true
		if err := decodeField(cfg, name, required, rv.Field(i)); err != nil {
			errs = append(errs, err)
		}
	}
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		if !known[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		errs = append(errs, &ConfigError{Field: k, Reason: ReasonUnknownField})
	}
	return errors.Join(errs...)
}

func parseTag(tag string) (name string, required bool) {
	name, opts, _ := strings.Cut(tag, ",")
	return name, opts == "required"
}

func decodeField(cfg map[string]any, name string, required bool, f reflect.Value) error {
	raw, ok := cfg[name]
	if !ok || raw == nil {
		if required {
			return &ConfigError{Field: name, Reason: ReasonMissing}
		}
		return nil
	}
	if err := assign(raw, f); err != nil {
		return &ConfigError{Field: name, Reason: err.Error()}
	}
	if required && f.IsZero() {
		return &ConfigError{Field: name, Reason: ReasonEmpty}
	}
	return nil
}

// assign converts raw into f's type.
func assign(raw any, f reflect.Value) error {
	if f.Type() == durationType {
		d, err := toDuration(raw)
		f.SetInt(int64(d))
		return err
	}
	switch f.Kind() {
	case reflect.String:
		s, ok := raw.(string)
		if !ok {
			return wrongType("a string", raw)
		}
		f.SetString(s)
	case reflect.Bool:
		b, ok := raw.(bool)
		if !ok {
			return wrongType("a bool", raw)
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := toInt(raw)
		f.SetInt(n)
		return err
	case reflect.Slice:
		return assignStrings(raw, f)
	case reflect.Map:
		return assignStringMap(raw, f)
	case reflect.Struct:
		return assignBlock(raw, f)
	default:
		return fmt.Errorf("unsupported field kind %s", f.Kind())
	}
	return nil
}

func wrongType(want string, raw any) error {
	return fmt.Errorf("expected %s, got %s", want, describe(raw))
}

func describe(raw any) string {
	switch raw.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case []any, []string, []map[string]any:
		return "list"
	case map[string]any, map[string]string:
		return "map"
	}
	if isNumber(raw) {
		return "number"
	}
	return fmt.Sprintf("%T", raw)
}

func isNumber(raw any) bool {
	switch raw.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64, json.Number:
		return true
	}
	return false
}

func toInt(raw any) (int64, error) {
	switch v := raw.(type) {
	case int:
		return int64(v), nil
	case int64:
		return v, nil
	case int32:
		return int64(v), nil
	case uint64:
		return int64(v), nil
	case uint:
		return int64(v), nil
	case json.Number:
		n, err := v.Int64()
		if err != nil {
			return 0, wrongType("an integer", raw)
		}
		return n, nil
	case float64:
		if v != math.Trunc(v) {
			return 0, fmt.Errorf("expected an integer, got %v", v)
		}
		return int64(v), nil
	}
	return 0, wrongType("an integer", raw)
}

// toDuration takes Go duration strings ("5s"); bare numbers are
// nanoseconds, which is how the JSON API encodes durations.
func toDuration(raw any) (time.Duration, error) {
	if s, ok := raw.(string); ok {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		return d, nil
	}
	if isNumber(raw) {
		n, err := toInt(raw)
		return time.Duration(n), err
	}
	return 0, wrongType("a duration string", raw)
}

func assignStrings(raw any, f reflect.Value) error {
	var out []string
	switch v := raw.(type) {
	case []string:
		out = slices.Clone(v)
	case []any:
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("element %d: %s", i, wrongType("a string", e))
			}
			out = append(out, s)
		}
	default:
		return wrongType("a list of strings", raw)
	}
	f.Set(reflect.ValueOf(out))
	return nil
}

// assignStringMap accepts a map or a list of maps (an HCL block written
// more than once), merged in order.
func assignStringMap(raw any, f reflect.Value) error {
	out := map[string]string{}
	var parts []map[string]any
	switch v := raw.(type) {
	case map[string]string:
		for k, s := range v {
			out[k] = s
		}
	case map[string]any:
		parts = []map[string]any{v}
	case []map[string]any:
		parts = v
	case []any:
		for _, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				return wrongType("a map of strings", raw)
			}
			parts = append(parts, m)
		}
	default:
		return wrongType("a map of strings", raw)
	}
	for _, m := range parts {
		for k, e := range m {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("key %q: %s", k, wrongType("a string", e))
			}
			out[k] = s
		}
	}
	f.Set(reflect.ValueOf(out))
	return nil
}

// assignBlock decodes a nested block (`volumes { enabled = true }`) into a
// struct with cfg tags of its own. HCL gives one block as a map, JSON may
// give a one-element list.
func assignBlock(raw any, f reflect.Value) error {
	if l, ok := raw.([]any); ok && len(l) == 1 {
		raw = l[0]
	}
	if l, ok := raw.([]map[string]any); ok && len(l) == 1 {
		raw = l[0]
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return wrongType("a block", raw)
	}
	return Decode(m, f.Addr().Interface())
}
