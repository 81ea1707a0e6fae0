package jobspec

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// functions is the HCL function table available in job files: cty's
// standard library under the names Nomad (and Terraform) use, plus file
// access when the caller allows it. baseDir anchors relative file paths;
// budget bounds what range and setproduct generate over the whole parse.
func functions(allowFS bool, baseDir string, budget *workBudget) map[string]function.Function {
	fns := map[string]function.Function{
		"abs": stdlib.AbsoluteFunc, "base64decode": base64DecodeFunc, "base64encode": base64EncodeFunc,
		"can": tryfunc.CanFunc, "ceil": stdlib.CeilFunc, "chomp": stdlib.ChompFunc,
		"chunklist": stdlib.ChunklistFunc, "coalesce": stdlib.CoalesceFunc,
		"coalescelist": stdlib.CoalesceListFunc, "compact": stdlib.CompactFunc,
		"concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc, "csvdecode": stdlib.CSVDecodeFunc,
		"distinct": stdlib.DistinctFunc, "element": stdlib.ElementFunc, "flatten": stdlib.FlattenFunc,
		"floor": stdlib.FloorFunc, "format": boundedFormat(stdlib.FormatFunc), "formatdate": stdlib.FormatDateFunc,
		"formatlist": boundedFormat(stdlib.FormatListFunc), "indent": stdlib.IndentFunc, "index": stdlib.IndexFunc,
		"join": stdlib.JoinFunc, "jsondecode": stdlib.JSONDecodeFunc, "jsonencode": stdlib.JSONEncodeFunc,
		"keys": stdlib.KeysFunc, "length": stdlib.LengthFunc, "log": stdlib.LogFunc,
		"lookup": stdlib.LookupFunc, "lower": stdlib.LowerFunc, "max": stdlib.MaxFunc,
		"merge": stdlib.MergeFunc, "min": stdlib.MinFunc, "parseint": stdlib.ParseIntFunc,
		"pow": stdlib.PowFunc, "range": charged(boundedRange, budget), "regex": stdlib.RegexFunc,
		"regexall": stdlib.RegexAllFunc, "regex_replace": stdlib.RegexReplaceFunc,
		"replace": stdlib.ReplaceFunc, "reverse": stdlib.ReverseListFunc,
		"setintersection": stdlib.SetIntersectionFunc, "setproduct": charged(boundedSetProduct, budget),
		"setsubtract": stdlib.SetSubtractFunc, "setunion": stdlib.SetUnionFunc,
		"signum": stdlib.SignumFunc, "slice": stdlib.SliceFunc, "sort": stdlib.SortFunc,
		"split": stdlib.SplitFunc, "strlen": stdlib.StrlenFunc, "strrev": stdlib.ReverseFunc,
		"substr": stdlib.SubstrFunc, "timeadd": stdlib.TimeAddFunc, "title": stdlib.TitleFunc,
		"tobool": stdlib.MakeToFunc(cty.Bool), "tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)), "tonumber": stdlib.MakeToFunc(cty.Number),
		"toset": stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)), "tostring": stdlib.MakeToFunc(cty.String),
		"trim": stdlib.TrimFunc, "trimprefix": stdlib.TrimPrefixFunc, "trimspace": stdlib.TrimSpaceFunc,
		"trimsuffix": stdlib.TrimSuffixFunc, "try": tryfunc.TryFunc, "upper": stdlib.UpperFunc,
		"urlencode": urlEncodeFunc, "values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc,
	}
	if allowFS {
		fns["file"] = fileFunc(baseDir)
		fns["fileexists"] = fileExistsFunc(baseDir)
		fns["fileset"] = fileSetFunc(baseDir)
	}
	return fns
}

// stringFunc wraps a string -> string Go function as an HCL function.
func stringFunc(fn func(string) (string, error)) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			out, err := fn(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			return cty.StringVal(out), nil
		},
	})
}

var base64EncodeFunc = stringFunc(func(s string) (string, error) {
	return base64.StdEncoding.EncodeToString([]byte(s)), nil
})

var base64DecodeFunc = stringFunc(func(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", fmt.Errorf("invalid base64: %w", err)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("decoded base64 is not valid UTF-8")
	}
	return string(b), nil
})

var urlEncodeFunc = stringFunc(func(s string) (string, error) { return url.QueryEscape(s), nil })

func resolve(baseDir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(baseDir, p)
}

func fileFunc(baseDir string) function.Function {
	return stringFunc(func(p string) (string, error) {
		b, err := os.ReadFile(resolve(baseDir, p))
		if err != nil {
			return "", err
		}
		if !utf8.Valid(b) {
			return "", fmt.Errorf("contents of %s are not valid UTF-8", p)
		}
		return string(b), nil
	})
}

func fileExistsFunc(baseDir string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			fi, err := os.Stat(resolve(baseDir, args[0].AsString()))
			return cty.BoolVal(err == nil && fi.Mode().IsRegular()), nil
		},
	})
}

// fileSetFunc lists the regular files under path matching a glob pattern,
// relative to path and sorted, like Terraform's fileset (without "**").
func fileSetFunc(baseDir string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}, {Name: "pattern", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Set(cty.String)),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			dir := resolve(baseDir, args[0].AsString())
			matches, err := filepath.Glob(filepath.Join(dir, args[1].AsString()))
			if err != nil {
				return cty.UnknownVal(cty.Set(cty.String)), err
			}
			return fileSetValue(dir, matches), nil
		},
	})
}

func fileSetValue(dir string, matches []string) cty.Value {
	var vals []cty.Value
	sort.Strings(matches)
	for _, m := range matches {
		if fi, err := os.Stat(m); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		rel, err := filepath.Rel(dir, m)
		if err == nil {
			vals = append(vals, cty.StringVal(filepath.ToSlash(rel)))
		}
	}
	if len(vals) == 0 {
		return cty.SetValEmpty(cty.String)
	}
	return cty.SetVal(vals)
}
