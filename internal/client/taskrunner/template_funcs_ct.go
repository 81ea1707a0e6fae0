package taskrunner

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5" //nolint:gosec // md5sum is a documented template function, not a security control
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"
	"unicode"

	"github.com/BurntSushi/toml"
	sockaddrtmpl "github.com/hashicorp/go-sockaddr/template"
	"go.yaml.in/yaml/v3"
)

// consul-template's helper functions (the ones that read no Consul or
// Vault data), written from its documented behaviour. Argument order
// follows consul-template: the piped subject comes last.

// templateNow is the clock of `timestamp`.
var templateNow = time.Now

// ctFuncs returns the helper functions of one render; env is the task's
// environment.
func ctFuncs(env map[string]string) template.FuncMap {
	pad := newScratch() // one scratchpad per render
	return template.FuncMap{
		"scratch":         func() *Scratch { return pad },
		"mustEnv":         func(k string) (string, error) { return mustEnv(env, k) },
		"envOrDefault":    func(k, def string) string { return envOrDefault(env, k, def) },
		"base64URLEncode": func(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) },
		"base64URLDecode": base64URLDecode,
		"byTag":           byTag,
		"containsAll":     func(needles, s any) (bool, error) { return containsCount(needles, s, true, true) },
		"containsAny":     func(needles, s any) (bool, error) { return containsCount(needles, s, false, true) },
		"containsNone":    func(needles, s any) (bool, error) { return containsCount(needles, s, true, false) },
		"containsNotAll":  func(needles, s any) (bool, error) { return containsCount(needles, s, false, false) },
		"in":              func(s, needle any) (bool, error) { return contains(needle, s) },
		"explodeMap":      explodeMap,
		"indent":          indent,
		"loop":            loop,
		"mergeMap":        func(src, dst map[string]any) map[string]any { return mergeMaps(src, dst, false) },
		"mergeMapWithOverride": func(src, dst map[string]any) map[string]any {
			return mergeMaps(src, dst, true)
		},
		"trim":            func(cutset, s string) string { return strings.Trim(s, cutset) },
		"trimPrefix":      func(prefix, s string) string { return strings.TrimPrefix(s, prefix) },
		"trimSuffix":      func(suffix, s string) string { return strings.TrimSuffix(s, suffix) },
		"parseFloat":      func(s string) (float64, error) { return strconv.ParseFloat(strings.TrimSpace(s), 64) },
		"parseUint":       func(s string) (uint64, error) { return strconv.ParseUint(strings.TrimSpace(s), 10, 64) },
		"parseJSON":       parseJSON,
		"parseYAML":       parseYAML,
		"regexMatch":      regexMatch,
		"regexReplaceAll": regexReplaceAll,
		"sha256Hex":       func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) },
		"md5sum":          func(s string) string { h := md5.Sum([]byte(s)); return hex.EncodeToString(h[:]) }, //nolint:gosec
		"hmacSHA256Hex":   hmacSHA256Hex,
		"splitToMap":      splitToMap,
		"timestamp":       timestamp,
		"toJSONPretty":    toJSONPretty,
		"toUnescapedJSON": func(v any) (string, error) { return marshalJSON(v, "") },
		"toUnescapedJSONPretty": func(v any) (string, error) {
			return marshalJSON(v, "  ")
		},
		"toTitle":  toTitle,
		"toTOML":   toTOML,
		"toYAML":   toYAML,
		"sockaddr": sockaddr,
		"add":      func(b, a any) (any, error) { return arith("add", a, b) },
		"subtract": func(b, a any) (any, error) { return arith("subtract", a, b) },
		"multiply": func(b, a any) (any, error) { return arith("multiply", a, b) },
		"divide":   func(b, a any) (any, error) { return arith("divide", a, b) },
		"modulo":   func(b, a any) (any, error) { return arith("modulo", a, b) },
		"minimum":  func(b, a any) (any, error) { return arith("minimum", a, b) },
		"maximum":  func(b, a any) (any, error) { return arith("maximum", a, b) },
	}
}

func mustEnv(env map[string]string, k string) (string, error) {
	v, ok := env[k]
	if !ok {
		return "", fmt.Errorf("mustEnv: %s is not set", k)
	}
	return v, nil
}

func envOrDefault(env map[string]string, k, def string) string {
	if v := env[k]; v != "" {
		return v
	}
	return def
}

func base64URLDecode(s string) (string, error) {
	b, err := base64.URLEncoding.DecodeString(s)
	return string(b), err
}

// byTag groups services by each of their tags.
func byTag(services []*TemplateService) map[string][]*TemplateService {
	out := map[string][]*TemplateService{}
	for _, s := range services {
		for _, t := range s.Tags {
			out[t] = append(out[t], s)
		}
	}
	return out
}

// containsCount is the containsAll/Any/None/NotAll family: every is
// whether all needles must match (else any one), want whether a match is
// being found (else being absent).
func containsCount(needles, s any, every, want bool) (bool, error) {
	list, err := listOf("contains", needles)
	if err != nil {
		return false, err
	}
	for _, n := range list {
		found, err := contains(n, s)
		if err != nil {
			return false, err
		}
		if every && found != want {
			return false, nil
		}
		if !every && found == want {
			return true, nil
		}
	}
	return every, nil
}

// listOf turns a slice or array into []any.
func listOf(name string, v any) ([]any, error) {
	if v == nil {
		return nil, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, fmt.Errorf("%s: want a list, got %T", name, v)
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, nil
}

// explodeMap turns "a/b/c" keys into nested maps.
func explodeMap(m map[string]any) (map[string]any, error) {
	out := map[string]any{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts := strings.Split(strings.Trim(k, "/"), "/")
		cur := out
		for _, p := range parts[:len(parts)-1] {
			next, ok := cur[p].(map[string]any)
			if !ok {
				if _, taken := cur[p]; taken {
					return nil, fmt.Errorf("explodeMap: %q is both a value and a prefix", p)
				}
				next = map[string]any{}
				cur[p] = next
			}
			cur = next
		}
		cur[parts[len(parts)-1]] = m[k]
	}
	return out, nil
}

// indent prefixes every line of s with n spaces.
func indent(n int, s string) (string, error) {
	if n < 0 {
		return "", errors.New("indent: the count must not be negative")
	}
	lines := strings.Count(s, "\n") + 1
	if n > 0 && lines*n+len(s) > MaxTemplateBytes {
		return "", errTemplateTooLarge
	}
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad), nil
}

// loop is `loop N` (0..N-1) or `loop A B` (A..B-1).
func loop(args ...any) ([]int64, error) {
	var from, to int64
	switch len(args) {
	case 1:
		n, err := toInt64(args[0])
		if err != nil {
			return nil, fmt.Errorf("loop: %w", err)
		}
		to = n
	case 2:
		a, err := toInt64(args[0])
		if err != nil {
			return nil, fmt.Errorf("loop: %w", err)
		}
		b, err := toInt64(args[1])
		if err != nil {
			return nil, fmt.Errorf("loop: %w", err)
		}
		from, to = a, b
	default:
		return nil, errors.New("loop: want one or two integers")
	}
	if to <= from {
		return nil, nil
	}
	if to-from > MaxTemplateListLen {
		return nil, fmt.Errorf("loop would make more than %d elements", MaxTemplateListLen)
	}
	out := make([]int64, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out, nil
}

func toInt64(v any) (int64, error) {
	switch n := v.(type) {
	case string:
		return strconv.ParseInt(strings.TrimSpace(n), 10, 64)
	case float32, float64:
		f := reflect.ValueOf(n).Float()
		if f != math.Trunc(f) {
			return 0, fmt.Errorf("%v is not a whole number", v)
		}
		return int64(f), nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if rv.Uint() > math.MaxInt64 {
			return 0, fmt.Errorf("%v is too large", v)
		}
		return int64(rv.Uint()), nil
	}
	return 0, fmt.Errorf("want an integer, got %T", v)
}

// mergeMaps copies src's keys into a copy of dst, recursing into maps
// both hold; override lets src's values win.
func mergeMaps(src, dst map[string]any, override bool) map[string]any {
	out := maps.Clone(dst)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range src {
		cur, ok := out[k]
		if !ok {
			out[k] = v
			continue
		}
		cm, cok := cur.(map[string]any)
		vm, vok := v.(map[string]any)
		switch {
		case cok && vok:
			out[k] = mergeMaps(vm, cm, override)
		case override:
			out[k] = v
		}
	}
	return out
}

func parseJSON(s string) (any, error) {
	if strings.TrimSpace(s) == "" {
		return map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("parseJSON: %w", err)
	}
	return v, nil
}

func parseYAML(s string) (any, error) {
	if strings.TrimSpace(s) == "" {
		return map[string]any{}, nil
	}
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("parseYAML: %w", err)
	}
	return v, nil
}

// regexCache keeps compiled expressions: a template in a loop compiles
// the same one many times.
var regexCache sync.Map

func compileRegex(expr string) (*regexp.Regexp, error) {
	if re, ok := regexCache.Load(expr); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	regexCache.Store(expr, re)
	return re, nil
}

func regexMatch(expr, s string) (bool, error) {
	re, err := compileRegex(expr)
	if err != nil {
		return false, fmt.Errorf("regexMatch: %w", err)
	}
	return re.MatchString(s), nil
}

func regexReplaceAll(expr, repl, s string) (string, error) {
	re, err := compileRegex(expr)
	if err != nil {
		return "", fmt.Errorf("regexReplaceAll: %w", err)
	}
	// Bound the output before building it: each match grows it by at
	// most the expanded replacement.
	if n := len(re.FindAllStringIndex(s, -1)); n > 0 && len(repl) > 0 {
		maxRepl := len(repl) + strings.Count(repl, "$")*len(s)
		if len(s)+n*maxRepl > MaxTemplateBytes && len(s)+n*len(repl) > MaxTemplateBytes {
			return "", errTemplateTooLarge
		}
	}
	out := re.ReplaceAllString(s, repl)
	if len(out) > MaxTemplateBytes {
		return "", errTemplateTooLarge
	}
	return out, nil
}

func hmacSHA256Hex(key, message string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(message))
	return hex.EncodeToString(m.Sum(nil))
}

// splitToMap splits "a:1,b:2" (sep ",", kvsep ":") into a map.
func splitToMap(sep, kvsep, s string) (map[string]string, error) {
	out := map[string]string{}
	if s == "" {
		return out, nil
	}
	parts, err := splitCapped(sep, s)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		k, v, ok := strings.Cut(p, kvsep)
		if !ok {
			return nil, fmt.Errorf("splitToMap: %q has no %q", p, kvsep)
		}
		out[k] = v
	}
	return out, nil
}

// timestamp is the current UTC time as RFC 3339, in a Go layout, or
// "unix" seconds.
func timestamp(layout ...string) (string, error) {
	now := templateNow().UTC()
	switch len(layout) {
	case 0:
		return now.Format(time.RFC3339), nil
	case 1:
		if layout[0] == "unix" {
			return strconv.FormatInt(now.Unix(), 10), nil
		}
		return now.Format(layout[0]), nil
	}
	return "", errors.New("timestamp: want at most one layout")
}

func toJSONPretty(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return string(b), err
}

// marshalJSON encodes without HTML escaping and without the trailing
// newline of json.Encoder.
func marshalJSON(v any, indent string) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// toTitle upper-cases the first letter of every word.
func toTitle(s string) string {
	prev := ' '
	return strings.Map(func(r rune) rune {
		boundary := unicode.IsSpace(prev) || unicode.IsPunct(prev) && prev != '\''
		prev = r
		if boundary {
			return unicode.ToTitle(r)
		}
		return r
	}, s)
}

func toTOML(v any) (string, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(v); err != nil {
		return "", fmt.Errorf("toTOML: %w", err)
	}
	return buf.String(), nil
}

func toYAML(v any) (string, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("toYAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// sockaddr evaluates a go-sockaddr template ("GetPrivateIP", ...).
func sockaddr(args ...string) (string, error) {
	expr := strings.Join(args, " ")
	out, err := sockaddrtmpl.Parse("{{ " + expr + " }}")
	if err != nil {
		return "", fmt.Errorf("sockaddr: %w", err)
	}
	return out, nil
}

// Scratch is the per-render scratchpad of `scratch`.
type Scratch struct {
	mu   sync.Mutex
	vals map[string]any
}

func newScratch() *Scratch { return &Scratch{vals: map[string]any{}} }

// Key reports whether k is set.
func (s *Scratch) Key(k string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.vals[k]
	return ok
}

// Get returns k's value (nil if unset).
func (s *Scratch) Get(k string) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.vals[k]
}

// Set stores v at k.
func (s *Scratch) Set(k string, v any) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vals[k] = v
	return ""
}

// SetX stores v at k unless k is set.
func (s *Scratch) SetX(k string, v any) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.vals[k]; !ok {
		s.vals[k] = v
	}
	return ""
}

// MapSet stores v under mk in the map at k.
func (s *Scratch) MapSet(k, mk string, v any) (string, error) { return s.mapSet(k, mk, v, true) }

// MapSetX is MapSet that keeps an existing value.
func (s *Scratch) MapSetX(k, mk string, v any) (string, error) { return s.mapSet(k, mk, v, false) }

func (s *Scratch) mapSet(k, mk string, v any, override bool) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.vals[k].(map[string]any)
	if !ok {
		if _, taken := s.vals[k]; taken {
			return "", fmt.Errorf("scratch: %q is not a map", k)
		}
		m = map[string]any{}
		s.vals[k] = m
	}
	if _, exists := m[mk]; override || !exists {
		m[mk] = v
	}
	return "", nil
}

// MapValues lists the map at k's values, sorted by key.
func (s *Scratch) MapValues(k string) ([]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.vals[k].(map[string]any)
	if !ok {
		if s.vals[k] == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("scratch: %q is not a map", k)
	}
	keys := make([]string, 0, len(m))
	for mk := range m {
		keys = append(keys, mk)
	}
	sort.Strings(keys)
	out := make([]any, 0, len(keys))
	for _, mk := range keys {
		out = append(out, m[mk])
	}
	return out, nil
}

// arith is consul-template's maths on two numbers (a op b): integers
// stay integers, anything with a float is a float.
func arith(op string, a, b any) (any, error) {
	ai, aInt := intValue(a)
	bi, bInt := intValue(b)
	if aInt && bInt {
		switch op {
		case "add":
			return ai + bi, nil
		case "subtract":
			return ai - bi, nil
		case "multiply":
			return ai * bi, nil
		case "divide", "modulo":
			if bi == 0 {
				return nil, fmt.Errorf("%s: division by zero", op)
			}
			if op == "divide" {
				return ai / bi, nil
			}
			return ai % bi, nil
		case "minimum":
			return min(ai, bi), nil
		case "maximum":
			return max(ai, bi), nil
		}
	}
	af, err := floatValue(a)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	bf, err := floatValue(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	switch op {
	case "add":
		return af + bf, nil
	case "subtract":
		return af - bf, nil
	case "multiply":
		return af * bf, nil
	case "divide":
		if bf == 0 {
			return nil, errors.New("divide: division by zero")
		}
		return af / bf, nil
	case "modulo":
		if bf == 0 {
			return nil, errors.New("modulo: division by zero")
		}
		return math.Mod(af, bf), nil
	case "minimum":
		return math.Min(af, bf), nil
	case "maximum":
		return math.Max(af, bf), nil
	}
	return nil, fmt.Errorf("unknown operation %q", op)
}

func intValue(v any) (int64, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if rv.Uint() <= math.MaxInt64 {
			return int64(rv.Uint()), true
		}
	}
	return 0, false
}

func floatValue(v any) (float64, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(rv.Uint()), nil
	case reflect.String:
		return strconv.ParseFloat(strings.TrimSpace(rv.String()), 64)
	}
	return 0, fmt.Errorf("want a number, got %T", v)
}
