package taskrunner

import (
	"fmt"
	"os"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
)

// sprigPrefix is how Nomad's templates name the sprig functions
// ({{ sprig_upper "x" }}), so they never shadow consul-template's own.
const sprigPrefix = "sprig_"

// sprigFuncs returns Masterminds/sprig's functions under their sprig_
// names. Those that read the client's own environment read the task's
// instead (the client's may hold secrets), and those that build a result
// from a count are capped like the rest of the template functions.
func sprigFuncs(env map[string]string) template.FuncMap {
	out := template.FuncMap{}
	for name, fn := range sprig.TxtFuncMap() {
		out[sprigPrefix+name] = fn
	}
	out[sprigPrefix+"env"] = func(k string) string { return env[k] }
	out[sprigPrefix+"expandenv"] = func(s string) string { return os.Expand(s, func(k string) string { return env[k] }) }
	out[sprigPrefix+"repeat"] = func(n int, s string) (string, error) {
		if n < 0 || n > 0 && len(s) > MaxTemplateBytes/n {
			return "", errTemplateTooLarge
		}
		return strings.Repeat(s, n), nil
	}
	for _, name := range []string{"randAlphaNum", "randAlpha", "randNumeric", "randAscii", "randBytes"} {
		out[sprigPrefix+name] = cappedCount(name, out[sprigPrefix+name])
	}
	for _, name := range []string{"until", "untilStep", "seq"} {
		out[sprigPrefix+name] = cappedSeq(name, out[sprigPrefix+name])
	}
	for _, name := range []string{"indent", "nindent"} {
		fn := out[sprigPrefix+name].(func(int, string) string)
		out[sprigPrefix+name] = func(n int, s string) (string, error) {
			if n < 0 || n > 0 && (strings.Count(s, "\n")+2)*n+len(s) > MaxTemplateBytes {
				return "", errTemplateTooLarge
			}
			return fn(n, s), nil
		}
	}
	return out
}

// MaxRandomLen caps the length of sprig's random strings: each character
// is drawn from crypto/rand, and millions of them stall a render.
const MaxRandomLen = 1 << 16

// cappedCount wraps a sprig function whose first argument is a length.
func cappedCount(name string, fn any) any {
	switch f := fn.(type) {
	case func(int) string:
		return func(n int) (string, error) {
			if n < 0 || n > MaxRandomLen {
				return "", fmt.Errorf("%s%s: count %d out of range", sprigPrefix, name, n)
			}
			return f(n), nil
		}
	case func(int) (string, error):
		return func(n int) (string, error) {
			if n < 0 || n > MaxRandomLen {
				return "", fmt.Errorf("%s%s: count %d out of range", sprigPrefix, name, n)
			}
			return f(n)
		}
	}
	return fn
}

// cappedSeq wraps sprig's sequence builders so they refuse lists longer
// than MaxTemplateListLen before building them.
func cappedSeq(name string, fn any) any {
	tooLong := fmt.Errorf("%s%s would make more than %d elements", sprigPrefix, name, MaxTemplateListLen)
	span := func(start, stop, step int) bool {
		if step == 0 {
			return false
		}
		n := (stop - start) / step
		return n > MaxTemplateListLen
	}
	switch f := fn.(type) {
	case func(int) []int: // until
		return func(n int) ([]int, error) {
			if span(0, n, 1) || span(0, n, -1) {
				return nil, tooLong
			}
			return f(n), nil
		}
	case func(int, int, int) []int: // untilStep
		return func(start, stop, step int) ([]int, error) {
			if span(start, stop, step) {
				return nil, tooLong
			}
			return f(start, stop, step), nil
		}
	case func(...int) string: // seq
		return func(p ...int) (string, error) {
			start, stop, step := 1, 0, 1
			switch len(p) {
			case 1:
				stop = p[0]
			case 2:
				start, stop = p[0], p[1]
			case 3:
				start, step, stop = p[0], p[1], p[2]
			}
			if step == 1 && stop < start {
				step = -1
			}
			if span(start, stop, step) {
				return "", tooLong
			}
			return f(p...), nil
		}
	}
	return fn
}
